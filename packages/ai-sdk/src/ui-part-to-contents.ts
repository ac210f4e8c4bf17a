import type { Content } from "@skein/thread-core";
import { DataContentSchema } from "@skein/thread-core/driver";
import type { UIMessage } from "ai";
import { checkUIPart } from "./check-ui-part.js";
import { MessageMappingError } from "./errors.js";
import {
  callArguments,
  isRecord,
  type Json,
  SKEIN_DATA_PART,
  TYPE_PREFIX,
  toJson,
  withExtra,
} from "./namespace.js";

type Part = UIMessage["parts"][number];

/** What a denied call's `function_result` says when the user gave no reason; the SDK tells the model the same. */
export const DENIED_RESULT = "Tool call execution denied.";

/** The parts of a UI message as skein contents, in order. */
export function uiPartsToContents(parts: readonly Part[], path: Array<string | number>): Content[] {
  return parts.flatMap((part, index) => uiPartToContents(part, [...path, index]));
}

/**
 * One UI part as skein contents: text, reasoning and files as skein's own types, a tool part as its
 * `function_call` and, once it has an outcome, its `function_result`; the rest (`source-url`, `step-start`, `data-*`,
 * and AI SDK 7's `custom`, `reasoning-file`, `steering-message`) as `ai-sdk.<type>` contents holding the part.
 */
function uiPartToContents(part: Part, path: Array<string | number>): Content[] {
  if (!isRecord(part as unknown) || typeof part.type !== "string") {
    throw new MessageMappingError("a part must be an object with a string type", path);
  }
  checkUIPart(part as Record<string, unknown>, path);
  if (part.type === SKEIN_DATA_PART) return [toJson((part as { data: unknown }).data) as Content];
  if (part.type === "text" || part.type === "reasoning") {
    const { type, text, ...rest } = part;
    return [withExtra({ type, text }, rest)];
  }
  if (part.type === "file") return [fileToContent(part as Extract<Part, { type: "file" }>)];
  if (part.type === "dynamic-tool" || part.type.startsWith("tool-")) return toolToContents(part as ToolPart);
  const { type, ...rest } = part as { type: string };
  return [toJson({ type: `${TYPE_PREFIX}${type}`, ...rest }) as Content];
}

/** A data URL this package can hold as skein `data` and give back exactly. */
export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

function fileToContent(part: Extract<Part, { type: "file" }>): Content {
  const { type: _type, mediaType, url, filename, ...rest } = part;
  const name = filename === undefined ? {} : { name: filename };
  const prefix = dataUrl(mediaType, "");
  if (url.startsWith(prefix)) {
    const data = { type: "data", mediaType, data: url.slice(prefix.length), ...name };
    if (DataContentSchema.safeParse(data).success) return withExtra(data, rest);
  }
  return withExtra({ type: "uri", uri: url, mediaType, ...name }, rest);
}

type ToolPart = Extract<Part, { toolCallId: string }>;

function toolToContents(part: ToolPart): Content[] {
  const { toolCallId, input, output, errorText, ...rest } = part as ToolPart & {
    input?: unknown;
    output?: unknown;
    errorText?: string;
  };
  const { toolName, ...kept } = rest as typeof rest & { toolName?: string };
  const name = part.type === "dynamic-tool" ? (toolName as string) : part.type.slice("tool-".length);
  const call = callArguments(input);
  const contents = [
    withExtra(
      { type: "function_call", callId: toolCallId, name, arguments: call.arguments },
      { ...kept, ...call.keep },
    ),
  ];
  const result = resultOf(part.state, output, errorText, part.approval);
  if (result) contents.push({ type: "function_result", callId: toolCallId, ...result } as Content);
  return contents;
}

/** The `function_result` fields of a tool part that has an outcome; other skein readers (runners) send it to models. */
function resultOf(
  state: ToolPart["state"],
  output: unknown,
  errorText: string | undefined,
  approval: { reason?: string } | undefined,
): { result: Json[string]; isError?: true } | undefined {
  switch (state) {
    case "output-available":
      return { result: toJson(output) };
    case "output-error":
      return { result: errorText ?? "", isError: true };
    case "output-denied":
      return { result: approval?.reason ?? DENIED_RESULT, isError: true };
    default:
      return undefined;
  }
}
