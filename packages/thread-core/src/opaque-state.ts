import type { JsonObject } from "./json.js";

const marker = Symbol.for("skein.opaqueState");

/**
 * A state of a type this process has no adapter for, read with `{ unknown: "preserve" }`. It serializes
 * back exactly as it was read, so a process can carry a sub-thread it cannot open.
 */
export class OpaqueThreadState {
  readonly [marker] = true;
  readonly $type: string;
  readonly id: string | undefined;

  constructor(readonly raw: Readonly<JsonObject>) {
    this.$type = String(raw.$type);
    this.id = typeof raw.id === "string" ? raw.id : undefined;
  }

  toJSON(): JsonObject {
    return this.raw as JsonObject;
  }

  static isInstance(value: unknown): value is OpaqueThreadState {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
