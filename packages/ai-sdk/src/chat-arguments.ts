import type { Thread } from "@skein/thread-core";
import type { UIMessage } from "ai";
import { ChatArgumentError, MessageMappingError } from "./errors.js";
import { isRecord } from "./namespace.js";

const A_THREAD = "a skein Thread (from await store.get(id) or await store.create())";

/** How an error names a value it was given, with the likely mistake when there is one. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  // Shortened and JSON-quoted: a string given by mistake may be long, or hold control characters.
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof (value as { then?: unknown }).then === "function") return "a Promise (add the missing await)";
  return typeof value === "object" ? "an object of another kind" : `the ${typeof value} ${String(value)}`;
}

/** `value` is a bound skein thread: a forgotten `await store.get(id)` gives a Promise, which has no messages. */
export function assertThread(call: string, value: unknown): asserts value is Thread {
  const candidate = value as Partial<Thread> | null | undefined;
  const isThread =
    isRecord(candidate) &&
    typeof candidate.id === "string" &&
    typeof candidate.messages === "function" &&
    typeof candidate.append === "function";
  if (!isThread) throw new ChatArgumentError(call, "thread", A_THREAD, describeValue(value));
}

/**
 * `value` is an array of objects shaped like UI messages, each with its id, checked before the thread is read:
 * a save looks messages up by id, and a store given `undefined` as an id would fail with a misleading error.
 */
export function assertUIMessages(
  call: string,
  argument: string,
  value: unknown,
): asserts value is UIMessage[] {
  if (!Array.isArray(value)) {
    const single = isRecord(value) && "parts" in value ? " (one message: pass [message])" : "";
    throw new ChatArgumentError(
      call,
      argument,
      "an array of UI messages",
      `${describeValue(value)}${single}`,
    );
  }
  value.forEach((message: unknown, index) => {
    if (!isRecord(message)) {
      throw new MessageMappingError(`a UI message must be an object, not ${describeValue(message)}`, [index]);
    }
    if (typeof message.id !== "string" || message.id.length === 0) {
      throw new MessageMappingError("a UI message needs a non-empty string id", [index, "id"]);
    }
  });
}

/** An options argument is an object or left out; `null` is refused rather than read as no options. */
export function assertOptions(call: string, value: unknown): void {
  if (value !== undefined && !isRecord(value)) {
    throw new ChatArgumentError(call, "its options", "an object or undefined", describeValue(value));
  }
}

/** Digits only, at most 15: every such string is a safe integer, so it reads back as the same number. */
const REVISION_TEXT = /^[0-9]{1,15}$/;

/**
 * Reads `ifRevision` as thread-core's doors do: absent, a whole number from 0, or a string of digits (as "3"
 * arrives from a header or a form) read as that number. Anything else could never equal a revision, so it is
 * refused here rather than failing the thread's check forever.
 */
export function readIfRevision(call: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === "string" && REVISION_TEXT.test(value)) return Number(value);
  throw new ChatArgumentError(
    call,
    "ifRevision",
    'a revision (thread.revision: a whole number from 0, or its digits as a string such as "3")',
    describeValue(value),
  );
}
