import type { JsonObject } from "./json.js";
import type { OpaqueState } from "./spec/parsed-state.js";

const marker = Symbol.for("skein.opaqueState");

/**
 * A state of a type this process has no adapter for, read with `{ unknown: "preserve" }`. It serializes
 * back exactly as it was read, so a process can carry a sub-thread it cannot open.
 */
export class OpaqueThreadState implements OpaqueState {
  readonly $type: string;
  readonly id: string | undefined;

  constructor(readonly raw: Readonly<JsonObject>) {
    // Set here, not declared as a field, so the class's type is the spec's `OpaqueState` and nothing more:
    // narrowing a `ParsedState` with `isInstance` then takes the opaque side away whole.
    Object.defineProperty(this, marker, { value: true, enumerable: true });
    this.$type = String(raw.$type);
    this.id = typeof raw.id === "string" ? raw.id : undefined;
  }

  toJSON(): JsonObject {
    return this.raw as JsonObject;
  }

  /** Whether `value` is an opaque state (of any installed copy of thread-core). */
  static isInstance(value: unknown): value is OpaqueThreadState {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
