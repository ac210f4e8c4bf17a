import { cloneJson } from "../json.js";
import type { SegmentInfo, StoredRecord } from "../local/log-driver.js";
import type { Message } from "../message.js";
import type { HistoryEvent } from "../thread.js";
import { MessageIdIndex } from "./memory-id-index.js";

/**
 * A segment of the memory store: its messages and the indexes appends and lookups need. Each message is
 * kept as its JSON text and parsed on read, so every read gets its own copy: the text takes about 60% of the
 * heap of the parsed objects (for a 230-byte message, 280 bytes against 390), which keeps a message under
 * 1.5x its raw JSON.
 */
export interface MemorySegment {
  info: SegmentInfo;
  texts: string[];
  index: MessageIdIndex;
  /** Offsets of the system messages, made on the first one. */
  system: number[] | undefined;
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
  const texts: string[] = [];
  return {
    info,
    texts,
    index: new MessageIdIndex((offset) => storedId(texts[offset] as string)),
    system: undefined,
  };
}

const ID_PREFIX = '{"id":"';

/**
 * The id of a stored message. A lookup by id (`before`, `after`, `message(id)`) checks the id at the offset
 * the index gives: read from the front of the text, where `normalizeMessage` puts it, rather than parsing
 * the whole message (a tenth of the time). A JSON string with no backslash ends at its first quote and reads
 * as written; any other text is parsed.
 */
export function storedId(text: string): string {
  if (text.startsWith(ID_PREFIX)) {
    const end = text.indexOf('"', ID_PREFIX.length);
    const id = text.slice(ID_PREFIX.length, end);
    if (end > 0 && !id.includes("\\")) return id;
  }
  return (JSON.parse(text) as Message).id;
}

/** A copy of the message at `offset`. */
export function messageAt(segment: MemorySegment, offset: number): Message {
  return JSON.parse(segment.texts[offset] as string) as Message;
}

/** Stores a copy of `message` at the segment's end and returns another, for the caller. */
export function pushMessage(segment: MemorySegment, message: Message): Message {
  const offset = segment.texts.length;
  const text = JSON.stringify(message);
  segment.texts.push(text);
  segment.index.add(message.id, offset);
  if (message.role === "system") {
    segment.system ??= [];
    segment.system.push(offset);
  }
  return JSON.parse(text) as Message;
}

/** The messages the segment holds under ids of `items`, as stored. */
export function heldMessages(segment: MemorySegment, items: Message[]): Message[] {
  const held: Message[] = [];
  for (const message of items) {
    const offset = segment.index.get(message.id);
    if (offset !== undefined) held.push(messageAt(segment, offset));
  }
  return held;
}
