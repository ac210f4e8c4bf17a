// What reading a state through the registry gives: a validated state, or, for a `$type` this process has no
// adapter for and asked to keep, an opaque one that serializes back exactly as it was read.
import type { JsonObject } from "./json-value.js";
import type { ThreadState } from "./thread-state.js";

/** Options of `parseThreadState`: whether an unknown `$type` is kept or refused. */
export interface ParseOptions {
  /** `"throw"` (default): an unknown `$type` is an `UnknownThreadTypeError`; `"preserve"`: an `OpaqueState`. */
  unknown?: "throw" | "preserve";
}

/**
 * A state of a type this process has no adapter for, read with `{ unknown: "preserve" }` (the engine's
 * `OpaqueThreadState`). It serializes back exactly as it was read, so a process can carry a sub-thread it
 * cannot open.
 */
export interface OpaqueState {
  readonly $type: string;
  readonly id: string | undefined;
  /** The JSON exactly as it was read. */
  readonly raw: Readonly<JsonObject>;
  toJSON(): JsonObject;
}

/** What `parseThreadState` returns: a validated state, or an opaque one kept byte for byte. */
export type ParsedState = ThreadState | OpaqueState;
