// The portable JSON of a local thread's whole log: what `store.export` gives and `store.import` takes, and the
// `memory` type's state. Only the type: ../local/log-state.ts holds the schema that checks it, and proves at
// compile time that the two agree.
import type { JsonValue } from "./json-value.js";
import type { Message } from "./message.js";
import type { HistoryEvent } from "./thread.js";

/** Where a log ends, or where a segment continues another: `offset` own messages into `segment`. */
export interface SegmentEnd {
  segment: string;
  offset: number;
}

/** One segment of an exported log: the prefix it continues, where it starts, and its own messages. */
export interface LogStateSegment {
  id: string;
  /** The prefix this segment continues, or null for a thread's first segment. */
  base: SegmentEnd | null;
  /** How many messages come before the segment's first own message. */
  start: number;
  createdAt: string;
  messages: Message[];
}

/** A change made under an operation id, kept with the log so a retry stays a no-op after an import. */
export interface LogStateOperation {
  id: string;
  revision: number;
  end: SegmentEnd;
  messages: string[];
}

/** The JSON of a local thread's log, as `store.export` gives it and `store.import` takes it. */
export interface LogState {
  $type: string;
  $v?: number | undefined;
  id: string;
  createdAt: string;
  updatedAt?: string | undefined;
  metadata: Record<string, JsonValue>;
  context: Record<string, JsonValue>;
  revision: number;
  /** The end of the thread: its messages are the chain ending here. */
  end: SegmentEnd;
  segments: LogStateSegment[];
  events: HistoryEvent[];
  /** The last changes made with an operation id (absent when none was). */
  operations?: LogStateOperation[] | undefined;
  /** Who the thread belongs to; absent in threads written before owners existed. */
  owner?: string | undefined;
  /** What a sidebar shows for the thread. */
  title?: string | undefined;
  /** When the thread expires (an ISO time); absent when it does not. */
  expiresAt?: string | undefined;
  [field: string]: unknown;
}
