import { newSortableId } from "@skein/thread-core";
import type { JsonObject } from "./json-value.js";

/**
 * How to stamp what a MAF message lacks: skein needs an id and a time on every message, MAF Python has
 * neither required and no time at all. What skein made up is recorded on the message (`maf.generated`) so
 * that writing it back to MAF leaves it out: a round trip gives MAF's document again, not one with invented
 * ids and times.
 */
export interface MessageStamps {
  /** The time given to messages that carry none. */
  createdAt: string;
}

/** `id` and `createdAt` of a skein message read from MAF, and the record of which of them skein made up. */
export function readStamps(
  given: { id: string | undefined; createdAt: string | undefined },
  stamps: MessageStamps,
): JsonObject {
  const generated: string[] = [];
  if (given.id === undefined) generated.push("id");
  if (given.createdAt === undefined) generated.push("createdAt");
  return {
    id: given.id ?? newSortableId(),
    createdAt: given.createdAt ?? stamps.createdAt,
    ...(generated.length === 0 ? {} : { maf: { generated } }),
  };
}

/** The `id` and `createdAt` a skein message gives MAF: only those skein did not make up. */
export function writeStamps(message: JsonObject): { id?: string; createdAt?: string } {
  const marker = message.maf;
  const generated = new Set(
    typeof marker === "object" && marker !== null && !Array.isArray(marker) && Array.isArray(marker.generated)
      ? marker.generated
      : [],
  );
  return {
    ...(generated.has("id") ? {} : { id: message.id as string }),
    ...(generated.has("createdAt") ? {} : { createdAt: message.createdAt as string }),
  };
}
