import { createHash } from "node:crypto";
import type { Message, MessageInput } from "@skein/thread-core";
import { CheckpointRecordError } from "./errors.js";
import type { StoredValue } from "./stored-value.js";

/**
 * Where a channel's value at a checkpoint comes from:
 * - `value`: the whole value, stored in this record;
 * - `items`: an array; the first `keep` items of the same channel's array at checkpoint `base` (none when
 *   there is no base), then `items`. A conversation that grows by one message stores one message per step.
 * - `from`: unchanged; the entry lives in the record of checkpoint `from`.
 * An array's entry (and a `from` entry pointing at one) also says its whole `length` and `hash` (see
 * `itemsHash`), so a child compares its array with it without reading earlier records.
 */
export type ChannelEntry = { channel: string } & (
  | { value: StoredValue }
  | { items: StoredValue[]; base?: string; keep?: number; length?: number; hash?: string }
  | { from: string; length?: number; hash?: string }
);

/** One `put`: a skein message whose one content is this. */
export interface CheckpointContent {
  type: "langgraph.checkpoint";
  checkpointId: string;
  parentId?: string;
  /**
   * The highest checkpoint id on the thread once this record was added (LangGraph orders checkpoints by
   * id, not by when they were put): the latest checkpoint, and a bound for listing in id order.
   */
  headId?: string;
  /** The checkpoint without its channel values, as the serializer wrote it. */
  checkpoint: StoredValue;
  metadata: StoredValue;
  channels: ChannelEntry[];
}

export interface StoredWrite {
  /** The write's index in its `putWrites` call, or LangGraph's negative index for special channels. */
  index: number;
  channel: string;
  value: StoredValue;
}

/** One `putWrites`: a skein message whose one content is this. */
export interface WritesContent {
  type: "langgraph.writes";
  checkpointId: string;
  taskId: string;
  taskPath: string;
  writes: StoredWrite[];
}

/** Message ids of checkpoint records start with this; writes records with `WRITES_PREFIX`. */
const CHECKPOINT_PREFIX = "cp.";
const HASHED_CHECKPOINT_PREFIX = "cp#";
const WRITES_PREFIX = "w.";
/** Room left in a 256-character message id for a checkpoint id kept as it is. */
const MAX_PLAIN_CHECKPOINT_ID = 200;
const AUTHOR = "langgraph";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what message ids refuse
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The record's message id: the checkpoint id when it fits, so the log reads naturally; else its hash. */
export function checkpointMessageId(checkpointId: string): string {
  return checkpointId.length <= MAX_PLAIN_CHECKPOINT_ID && !CONTROL.test(checkpointId)
    ? CHECKPOINT_PREFIX + checkpointId
    : HASHED_CHECKPOINT_PREFIX + sha256(JSON.stringify(checkpointId));
}

/**
 * The id of a writes record: a hash of everything in it, so a retried `putWrites` re-sends an equal
 * message (a no-op) and a different one never collides.
 */
export function writesMessageId(content: WritesContent): string {
  return WRITES_PREFIX + sha256(JSON.stringify(content));
}

function timestampOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed.toISOString();
}

export function checkpointMessage(content: CheckpointContent, ts: string | undefined): MessageInput {
  const createdAt = timestampOf(ts);
  return {
    id: checkpointMessageId(content.checkpointId),
    role: "tool",
    ...(createdAt === undefined ? {} : { createdAt }),
    authorName: AUTHOR,
    contents: [content as unknown as Message["contents"][number]],
  };
}

export function writesMessage(content: WritesContent): MessageInput {
  return {
    id: writesMessageId(content),
    role: "tool",
    authorName: AUTHOR,
    contents: [content as unknown as Message["contents"][number]],
  };
}

export type LogEntry =
  | { kind: "checkpoint"; content: CheckpointContent }
  | { kind: "writes"; content: WritesContent }
  | { kind: "other" };

/** What a message of the log holds; messages this package did not write are `other` and ignored. */
export function readLogEntry(threadId: string, message: Message): LogEntry {
  if (message.authorName !== AUTHOR || message.contents.length !== 1) return { kind: "other" };
  const content = message.contents[0] as { type: string } & Record<string, unknown>;
  if (content.type === "langgraph.checkpoint") {
    if (typeof content.checkpointId !== "string" || !Array.isArray(content.channels)) {
      throw new CheckpointRecordError(threadId, `message ${JSON.stringify(message.id)} is not a checkpoint`);
    }
    return { kind: "checkpoint", content: content as unknown as CheckpointContent };
  }
  if (content.type === "langgraph.writes") {
    if (typeof content.checkpointId !== "string" || !Array.isArray(content.writes)) {
      throw new CheckpointRecordError(
        threadId,
        `message ${JSON.stringify(message.id)} is not a writes record`,
      );
    }
    return { kind: "writes", content: content as unknown as WritesContent };
  }
  return { kind: "other" };
}
