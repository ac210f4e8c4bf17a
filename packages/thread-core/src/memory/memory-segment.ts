import { cloneJson } from "../json.js";
import type { SegmentInfo, StoredRecord } from "../local/log-driver.js";
import type { Message } from "../message.js";
import type { HistoryEvent } from "../thread.js";

/** A segment of the memory store: its messages, frozen, and the indexes appends and lookups need. */
export interface MemorySegment {
  info: SegmentInfo;
  messages: Message[];
  index: Map<string, number>;
  system: number[];
}

/**
 * Local thread logs in process memory. Every operation runs synchronously inside one call, so each is
 * atomic. Segments are reference-counted: one a record, a checkpoint or another segment points at lives;
 * the last reference dropped (by `delete`) frees it at once.
 */

/**
 * A record for a caller: metadata and context are copied; events are shared, since they are frozen and
 * replaced (never changed) by a commit, so reads cost nothing per checkpoint or rollback.
 */
export function copyRecord<Record extends StoredRecord>(record: Record): Record {
  if (record.kind === "state") return cloneJson(record);
  return { ...record, metadata: cloneJson(record.metadata), context: cloneJson(record.context) };
}

export function freezeEvents(events: HistoryEvent[]): HistoryEvent[] {
  return Object.freeze(events.map((event) => deepFreeze(event))) as HistoryEvent[];
}

export function deepFreeze<Value>(value: Value): Value {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

export function emptySegment(info: SegmentInfo): MemorySegment {
  return { info, messages: [], index: new Map(), system: [] };
}

/** The messages the segment holds under ids of `items`, as stored. */
export function heldMessages(segment: MemorySegment, items: Message[]): Message[] {
  const held: Message[] = [];
  for (const message of items) {
    const offset = segment.index.get(message.id);
    if (offset !== undefined) held.push(segment.messages[offset] as Message);
  }
  return held;
}
