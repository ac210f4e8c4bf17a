import type { Content, JsonValue, Message } from "@skein/thread-core";

/**
 * Where this package keeps what skein has no field for, so the way back is exact: a content's `"ai-sdk"` field
 * (the rest of the UI part or model part) and a message's `metadata["ai-sdk"]`. Other skein readers ignore both.
 */
export const EXTRA = "ai-sdk";

/** Parts with no skein content type become contents of type `ai-sdk.<part type>` (`ai-sdk.source-url`, …). */
export const TYPE_PREFIX = "ai-sdk.";

/** A skein content with no UI part (usage, error, a file id, another package's content) travels as this data part, unchanged. */
export const SKEIN_DATA_PART = "data-skein";

/** What `metadata["ai-sdk"]` of a message holds. */
export interface MessageExtra {
  /** Which mapping wrote the message: `fromUIMessages` or `fromModelMessages`. */
  from?: "ui" | "model";
  /** The UI message's `metadata`. */
  metadata?: JsonValue;
  /** The model message's `providerOptions`. */
  providerOptions?: JsonValue;
  /** The model message's content was a string, not an array of parts. */
  text?: true;
}

export type Json = Record<string, JsonValue>;

export function messageExtra(message: Message): MessageExtra | undefined {
  const extra = message.metadata?.[EXTRA];
  return isRecord(extra) ? (extra as MessageExtra) : undefined;
}

export function contentExtra(content: Content): Json | undefined {
  const extra = (content as Json)[EXTRA];
  return isRecord(extra) ? (extra as Json) : undefined;
}

/** `content` with `extra` under `"ai-sdk"`, or without the field when there is nothing to keep. */
export function withExtra(content: Record<string, unknown>, extra: Record<string, unknown>): Content {
  const kept = toJson(extra) as Json;
  return (Object.keys(kept).length === 0 ? content : { ...content, [EXTRA]: kept }) as Content;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON data as JSON carries it: `undefined` properties left out, as a store would. */
export function toJson(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

/** The call's input from a `function_call`: the kept input, else its object arguments, else its string arguments parsed. */
export function callInput(content: { arguments: unknown }, extra: Json | undefined): unknown {
  if (extra && "input" in extra) return extra.input;
  if (typeof content.arguments !== "string") return content.arguments;
  if (extra?.noInput === true) return undefined;
  try {
    return JSON.parse(content.arguments);
  } catch {
    return content.arguments;
  }
}

/** A `function_call`'s `arguments` for an input, and what to keep so the input comes back exactly. */
export function callArguments(input: unknown): { arguments: Json | string; keep: Record<string, unknown> } {
  if (isRecord(input)) return { arguments: input as Json, keep: {} };
  if (input === undefined) return { arguments: "", keep: { noInput: true } };
  return { arguments: JSON.stringify(input), keep: { input } };
}
