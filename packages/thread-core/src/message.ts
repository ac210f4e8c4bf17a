import { hash } from "node:crypto";
import { z } from "zod";
import { ConflictError, InvalidMessageError } from "./errors.js";
import { newSortableId } from "./ids.js";
import { canonicalJson, jsonData } from "./json.js";
import type {
  Content,
  DataContent,
  ErrorContent,
  FileContent,
  FunctionCallContent,
  FunctionResultContent,
  Message,
  ReasoningContent,
  Role,
  TextContent,
  UriContent,
  UsageContent,
} from "./spec/message.js";
import { ISO_UTC_TIMESTAMP, TimestampSchema } from "./timestamp.js";

export type * from "./spec/message.js";

import type { Same } from "./type-equality.js";

const isoTimestamp = TimestampSchema;
const jsonValue = z.json();

/** The zod schema of `text` content. */
export const TextContentSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
/** The zod schema of `reasoning` content. */
export const ReasoningContentSchema = z.looseObject({ type: z.literal("reasoning"), text: z.string() });
/** The zod schema of `function_call` content. */
export const FunctionCallContentSchema = z.looseObject({
  type: z.literal("function_call"),
  callId: z.string().min(1),
  name: z.string().min(1),
  arguments: z.union([z.record(z.string(), jsonValue), z.string()]),
});
/** The zod schema of `function_result` content. */
export const FunctionResultContentSchema = z.looseObject({
  type: z.literal("function_result"),
  callId: z.string().min(1),
  result: jsonValue,
  isError: z.boolean().optional(),
});
/** The zod schema of `data` content. */
export const DataContentSchema = z.looseObject({
  type: z.literal("data"),
  mediaType: z.string().min(1),
  data: z.base64(),
});
/** The zod schema of `uri` content. */
export const UriContentSchema = z.looseObject({
  type: z.literal("uri"),
  uri: z.string().min(1),
  mediaType: z.string().optional(),
});
/** The zod schema of `file` content. */
export const FileContentSchema = z.looseObject({
  type: z.literal("file"),
  fileId: z.string().min(1),
  name: z.string().optional(),
  mediaType: z.string().optional(),
});
const tokenCount = z.number().int().nonnegative().optional();
/** The zod schema of `usage` content. */
export const UsageContentSchema = z.looseObject({
  type: z.literal("usage"),
  inputTokens: tokenCount,
  outputTokens: tokenCount,
  totalTokens: tokenCount,
  reasoningTokens: tokenCount,
  cachedInputTokens: tokenCount,
});
/** The zod schema of `error` content. */
export const ErrorContentSchema = z.looseObject({
  type: z.literal("error"),
  message: z.string(),
  code: z.string().optional(),
});

const knownContentSchemas = [
  TextContentSchema,
  ReasoningContentSchema,
  FunctionCallContentSchema,
  FunctionResultContentSchema,
  DataContentSchema,
  UriContentSchema,
  FileContentSchema,
  UsageContentSchema,
  ErrorContentSchema,
] as const;

/** The content `type`s skein knows; others are kept as they are. */
export const KNOWN_CONTENT_TYPES: ReadonlySet<string> = new Set(
  knownContentSchemas.map((schema) => schema.shape.type.value),
);

/** A content of a type this version does not know: kept exactly as it was. */
export const UnknownContentSchema = z
  .looseObject({ type: z.string().min(1) })
  .refine((content) => !KNOWN_CONTENT_TYPES.has(content.type), {
    message: "a content of a known type must match that type's schema",
  });

/** The zod schema of any message content; a content of an unknown `type` is kept as it is. */
export const ContentSchema = z.union([...knownContentSchemas, UnknownContentSchema]);

/** Every message role, in the order skein lists them. */
export const ROLES = ["system", "user", "assistant", "tool"] as const satisfies readonly Role[];

/** The zod schema of a stored message. */
export const MessageSchema = z.looseObject({
  id: z.string().min(1).max(256),
  role: z.enum(ROLES),
  createdAt: isoTimestamp,
  authorName: z.string().optional(),
  contents: z.array(ContentSchema),
  metadata: z.record(z.string(), jsonValue).optional(),
});

// The schemas accept exactly the types the spec declares: a change to one side that the other does not follow
// fails the build here.
const schemasMatchSpec: [
  Same<z.infer<typeof TextContentSchema>, TextContent>,
  Same<z.infer<typeof ReasoningContentSchema>, ReasoningContent>,
  Same<z.infer<typeof FunctionCallContentSchema>, FunctionCallContent>,
  Same<z.infer<typeof FunctionResultContentSchema>, FunctionResultContent>,
  Same<z.infer<typeof DataContentSchema>, DataContent>,
  Same<z.infer<typeof UriContentSchema>, UriContent>,
  Same<z.infer<typeof FileContentSchema>, FileContent>,
  Same<z.infer<typeof UsageContentSchema>, UsageContent>,
  Same<z.infer<typeof ErrorContentSchema>, ErrorContent>,
  Same<z.infer<typeof ContentSchema>, Content>,
  Same<(typeof ROLES)[number], Role>,
  Same<z.infer<typeof MessageSchema>, Message>,
] = [true, true, true, true, true, true, true, true, true, true, true, true];
void schemasMatchSpec;

const ROLE_SET: ReadonlySet<string> = new Set(ROLES);

/**
 * A cheap check that says yes only for messages `MessageSchema` surely accepts (plain text and
 * reasoning contents); anything else goes to the schema. Long logs are mostly such messages, and
 * parsing them must not cost many times a `JSON.parse`.
 */
function isPlainMessage(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  const { id, role, createdAt, authorName, contents, metadata } = message;
  if (typeof id !== "string" || id.length === 0 || id.length > 256) return false;
  if (typeof role !== "string" || !ROLE_SET.has(role)) return false;
  if (typeof createdAt !== "string" || !ISO_UTC_TIMESTAMP.test(createdAt)) return false;
  if (authorName !== undefined && typeof authorName !== "string") return false;
  if (metadata !== undefined) return false;
  if (!Array.isArray(contents)) return false;
  for (const content of contents) {
    if (typeof content !== "object" || content === null) return false;
    const { type, text } = content as Record<string, unknown>;
    if ((type !== "text" && type !== "reasoning") || typeof text !== "string") return false;
  }
  return true;
}

/**
 * An array of messages: each checked cheaply, and by `MessageSchema` where the cheap check is unsure.
 * Its JSON Schema is an array of `MessageSchema` (see `Registry.jsonSchema`).
 */
export const MessageListSchema = z.array(z.unknown()).check((context) => {
  context.value.forEach((value, index) => {
    if (isPlainMessage(value)) return;
    const result = MessageSchema.safeParse(value);
    if (result.success) return;
    for (const issue of result.error.issues) {
      context.issues.push({
        code: "custom",
        message: issue.message,
        input: value,
        path: [index, ...issue.path],
      });
    }
  });
}) as unknown as z.ZodType<Message[], unknown>;

/** How deep a message sits in a thread's export (`segments[i].messages[j]`): what append accepts, import takes back. */
const MESSAGE_DEPTH_IN_EXPORT = 4;

/** Validates one input message and fills in a sortable `id` and `createdAt` where absent. */
export function normalizeMessage(input: unknown, path: Array<string | number> = []): Message {
  // The JSON rule of every door: `undefined` properties are absent, here as in a thread's metadata.
  const data = jsonData(input, (detail, at) => new InvalidMessageError(detail, [...path, ...at]), {
    depth: MESSAGE_DEPTH_IN_EXPORT,
  });
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new InvalidMessageError("expected an object with a role and contents or text", path);
  }
  const { id, role, createdAt, authorName, contents, metadata, text, ...rest } = data as Record<
    string,
    unknown
  >;
  if (text !== undefined) {
    if (typeof text !== "string") throw new InvalidMessageError("text must be a string", [...path, "text"]);
    if (contents !== undefined) throw new InvalidMessageError("give either text or contents, not both", path);
  }
  // Built in the schema's key order, so a message's JSON reads the same before and after a round trip.
  const candidate: Record<string, unknown> = {
    id: id ?? newSortableId(),
    role,
    createdAt: createdAt ?? new Date().toISOString(),
    ...(authorName === undefined ? {} : { authorName }),
    contents: text === undefined ? contents : [{ type: "text", text }],
    ...(metadata === undefined ? {} : { metadata }),
    ...rest,
  };
  return parseMessage(candidate, path);
}

/** Validates a stored message, keeping every field (known or not) exactly. */
export function parseMessage(value: unknown, path: Array<string | number> = []): Message {
  if (isPlainMessage(value)) return value as Message;
  const result = MessageSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new InvalidMessageError(issue?.message ?? "invalid", [
      ...path,
      ...(issue?.path ?? []).map(pathPart),
    ]);
  }
  return result.data;
}

function pathPart(part: PropertyKey): string | number {
  return typeof part === "number" ? part : String(part);
}

/**
 * What makes two messages with one id "the same" for idempotent re-sends: everything but `createdAt`,
 * which a retry may fill in anew. Key order does not matter.
 */
export function messageFingerprint(message: Message): string {
  return hash("sha256", canonicalJson(message, "createdAt"), "base64url").slice(0, 22);
}

/**
 * The `ConflictError` for `message` re-sent under the id of `stored` with other content, or undefined when
 * the two are the same (`messageFingerprint`). Every store refuses such a re-send in these words.
 */
export function messageConflict(
  stored: Message,
  message: Message,
  source?: string,
): ConflictError | undefined {
  if (messageFingerprint(stored) === messageFingerprint(message)) return undefined;
  return new ConflictError(
    `Message ${JSON.stringify(message.id)} is already in the thread with other content; nothing was written.`,
    message.id,
    { source },
  );
}

/** The text of a message's text contents, joined; handy for transcripts and token estimates. */
export function messageText(message: Message): string {
  return message.contents
    .map((content) =>
      content.type === "text" || content.type === "reasoning" ? (content as TextContent).text : "",
    )
    .filter(Boolean)
    .join("\n");
}
