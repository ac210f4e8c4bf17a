import { type Message, PointNotFoundError, type Thread } from "@skein/thread-core";
import {
  type CheckpointContent,
  checkpointMessageId,
  readLogEntry,
  type WritesContent,
} from "./checkpoint-record.js";

/** The first backward page is small (the newest checkpoint is usually a few messages from the end); later ones grow. */
const FIRST_PAGE = 16;
const LARGEST_PAGE = 512;
/** Messages read around a record that is not cached yet: its ancestors usually sit just before it. */
const NEIGHBOURHOOD = 64;
/** Records kept by one reader; a long listing forgets the oldest it read and reads them again if needed. */
const KEPT_RECORDS = 4096;

/**
 * Reads one skein thread of checkpoint and writes records, by message id or in pages, never the whole log
 * at once. Records read are kept for the life of this object (one saver call, up to KEPT_RECORDS), so
 * walking a chain of ancestors costs a read per page, not per record.
 */
export class CheckpointLog {
  readonly #records = new Map<string, CheckpointContent>();

  constructor(readonly thread: Thread) {}

  #remember(messages: Message[]): void {
    for (const message of messages) {
      const entry = readLogEntry(this.thread.id, message);
      if (entry.kind !== "checkpoint") continue;
      this.#records.delete(entry.content.checkpointId);
      this.#records.set(entry.content.checkpointId, entry.content);
      if (this.#records.size > KEPT_RECORDS)
        this.#records.delete(this.#records.keys().next().value as string);
    }
  }

  /** The record of a checkpoint, or undefined when this log has none. */
  async record(checkpointId: string): Promise<CheckpointContent | undefined> {
    const cached = this.#records.get(checkpointId);
    if (cached) return cached;
    const messageId = checkpointMessageId(checkpointId);
    let page: Message[];
    try {
      page = await (await this.thread.at(messageId)).messages({ last: NEIGHBOURHOOD });
    } catch (error) {
      if (PointNotFoundError.isInstance(error)) return undefined;
      throw error;
    }
    this.#remember(page);
    // A record hashed into its message id is found by the id; the check guards against a foreign message.
    return this.#records.get(checkpointId);
  }

  /** Every message, newest first, in pages that grow as the reader goes further back. */
  async *newestFirst(): AsyncGenerator<Message> {
    let size = FIRST_PAGE;
    let page = await this.thread.messages({ last: size });
    let reachedStart = page.length < size;
    for (;;) {
      this.#remember(page);
      for (let index = page.length - 1; index >= 0; index--) yield page[index] as Message;
      const oldest = page[0];
      if (reachedStart || oldest === undefined) return;
      size = Math.min(size * 2, LARGEST_PAGE);
      // The view ending at `oldest` holds it last: ask for one more and drop it.
      const more = await (await this.thread.at(oldest.id)).messages({ last: size + 1 });
      reachedStart = more.length < size + 1;
      page = more.slice(0, -1);
    }
  }

  /** The writes records stored against a checkpoint, in the order they were written; they follow its record. */
  async writesAfter(checkpointId: string): Promise<WritesContent[]> {
    const found: WritesContent[] = [];
    let after = checkpointMessageId(checkpointId);
    for (;;) {
      const page = await this.thread.messages({ after, limit: LARGEST_PAGE });
      this.#remember(page);
      for (const message of page) {
        const entry = readLogEntry(this.thread.id, message);
        if (entry.kind === "writes" && entry.content.checkpointId === checkpointId) found.push(entry.content);
      }
      const last = page[page.length - 1];
      if (page.length < LARGEST_PAGE || last === undefined) return found;
      after = last.id;
    }
  }
}
