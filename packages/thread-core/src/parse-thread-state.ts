import { defaultRegistry } from "./create-registry.js";
import type { ParsedState, ParseOptions } from "./registry.js";
import type { ThreadTypeRegistry } from "./spec/thread-store.js";

/**
 * Validates and migrates a thread's JSON and resolves its nested states; the result is state, not bound.
 * Any input yields a state or a `SkeinError`.
 * @example const state = parseThreadState(JSON.parse(text), { unknown: "preserve" });
 */
export function parseThreadState(
  json: unknown,
  options: ParseOptions & { registry?: ThreadTypeRegistry } = {},
): ParsedState {
  return (options.registry ?? defaultRegistry()).parse(json, options);
}

/** A thread's JSON text: `JSON.stringify` with its state. */
export function serializeThread(thread: { toJSON(): unknown }): string {
  return JSON.stringify(thread);
}
