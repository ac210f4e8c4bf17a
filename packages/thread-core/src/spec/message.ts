// The message format (SPEC §2, Messages) as types. The zod schemas that check it live in ../message.ts, which
// proves at compile time that what they accept is exactly these types. Every content and message keeps fields
// this version does not know (`[field: string]: unknown`), as the format promises.
import type { JsonValue } from "./json-value.js";

/** Plain text, as message content. */
export interface TextContent {
  type: "text";
  text: string;
  [field: string]: unknown;
}

/** A model's reasoning text, as message content. */
export interface ReasoningContent {
  type: "reasoning";
  text: string;
  [field: string]: unknown;
}

/** A model's call of a tool: `callId`, `name` and `arguments`. */
export interface FunctionCallContent {
  type: "function_call";
  callId: string;
  name: string;
  /** A JSON object, or the model's own string when it is not valid JSON. */
  arguments: Record<string, JsonValue> | string;
  [field: string]: unknown;
}

/** A tool's answer to a `function_call` with the same `callId`. */
export interface FunctionResultContent {
  type: "function_result";
  callId: string;
  result: JsonValue;
  isError?: boolean | undefined;
  [field: string]: unknown;
}

/** Inline binary content: a media type and base64 data. */
export interface DataContent {
  type: "data";
  mediaType: string;
  /** Base64. */
  data: string;
  [field: string]: unknown;
}

/** A link to content elsewhere, as message content. */
export interface UriContent {
  type: "uri";
  uri: string;
  mediaType?: string | undefined;
  [field: string]: unknown;
}

/** A reference to a file a service holds, as message content. */
export interface FileContent {
  type: "file";
  fileId: string;
  name?: string | undefined;
  mediaType?: string | undefined;
  [field: string]: unknown;
}

/** Token counts of a model call, as message content. */
export interface UsageContent {
  type: "usage";
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  totalTokens?: number | undefined;
  reasoningTokens?: number | undefined;
  cachedInputTokens?: number | undefined;
  [field: string]: unknown;
}

/** An error a model or tool reported, as message content. */
export interface ErrorContent {
  type: "error";
  message: string;
  code?: string | undefined;
  [field: string]: unknown;
}

/** A content of a type this version does not know: kept exactly as it was. */
export interface UnknownContent {
  type: string;
  [field: string]: unknown;
}

/** One part of a message: text, reasoning, a tool call or result, data, a URI, a file, usage or an error. */
export type Content =
  | TextContent
  | ReasoningContent
  | FunctionCallContent
  | FunctionResultContent
  | DataContent
  | UriContent
  | FileContent
  | UsageContent
  | ErrorContent
  | UnknownContent;

/** Who wrote a message: `system`, `user`, `assistant` or `tool`. */
export type Role = "system" | "user" | "assistant" | "tool";

/** One message of a thread: id, role, time, optional author and its contents. */
export interface Message {
  /** 1–256 characters, unique within the thread. */
  id: string;
  role: Role;
  /** ISO-8601 UTC. */
  createdAt: string;
  authorName?: string | undefined;
  contents: Content[];
  metadata?: Record<string, JsonValue> | undefined;
  [field: string]: unknown;
}

/** What `append` accepts: a full message, or `{ role, text }` shorthand; `id` and `createdAt` are filled in. */
export type MessageInput =
  | (Omit<Message, "id" | "createdAt"> & { id?: string; createdAt?: string })
  | {
      id?: string;
      role: Role;
      text: string;
      createdAt?: string;
      authorName?: string;
      metadata?: Record<string, JsonValue>;
    };
