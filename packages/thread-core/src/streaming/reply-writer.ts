import { ThreadNotFoundError } from "../errors.js";
import { normalizeMessage } from "../message.js";
import { redactSecrets } from "../redact-secrets.js";
import type { Content, Message } from "../spec/message.js";
import type { ReplyDelta, StreamingReply } from "../spec/streaming.js";
import type { StreamAccess } from "./stream-access.js";
import { batchMessage, checkDelta, mergeDeltas } from "./stream-deltas.js";
import type { StreamEntry } from "./stream-entries.js";
import { ReplyEndedError } from "./stream-errors.js";
import { announce } from "./stream-wakeups.js";

/** What a writer that knows a reply's finished form better than its deltas gives `end` and `fail`. */
type FinalForm = { contents?: Content[]; metadata?: Message["metadata"] };

/** Why a batch is written: buffered deltas (full or timed), the lease's heartbeat, or `end`'s last batch. */
type BatchKind = "deltas" | "heartbeat" | "last";

/** How a reply batches its deltas and how long its writer's lease lasts. */
export interface ReplySettings {
  flushMs: number;
  maxBatchBytes: number;
  leaseMs: number;
}

/**
 * The writing end of a streamed message. Deltas wait in a buffer for `flushMs` (or until it holds
 * `maxBatchBytes`), then go to the reply's own segment as one batch (one message), so a reply costs one
 * write per batch, never one per token, and storage in proportion to its length. `end` writes the whole
 * message into the thread's log in one commit that also drops the reply's entry (the deltas still buffered
 * go there only, not to a batch first, unless the writer ends with contents of its own). Each batch renews the
 * writer's lease (stream-leases.ts); while it is open, a timer writes an empty batch every third of `leaseMs`
 * in which it wrote none, so the lease holds without any commit of the thread. A writer that dies stops
 * writing, and the next reader or writer of the thread ends the message `interrupted` from the batches flushed.
 */
export class ReplyWriter implements StreamingReply {
  readonly #access: StreamAccess;
  readonly #entry: StreamEntry;
  readonly #settings: ReplySettings;
  readonly #deltas: Content[] = [];
  #buffer: Content[] = [];
  #bufferBytes = 0;
  #batches = 0;
  /** Whether a batch went (or may have gone) to the reply's segment: only then is there one to reclaim. */
  #batched = false;
  /** `#batches` at the previous tick of the lease timer: none written since means a heartbeat is due. */
  #batchesAtTick = 0;
  #flushing: Promise<void> = Promise.resolve();
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #renewTimer: ReturnType<typeof setInterval>;
  #ended = false;
  #leaseLost = false;
  /** The thread was deleted (an erase, a sweep, `store.delete`) while the reply streamed: every call says so. */
  #threadGone: unknown;
  /** A failed timed flush, reported by the next `write` or `end`. */
  #failure: unknown;

  constructor(access: StreamAccess, entry: StreamEntry, settings: ReplySettings) {
    this.#access = access;
    this.#entry = entry;
    this.#settings = settings;
    this.#renewTimer = setInterval(() => void this.#renew(), Math.max(1, Math.floor(settings.leaseMs / 3)));
    // A reply left open must not keep a process alive: its lease lapses and a reader ends it.
    this.#renewTimer.unref?.();
  }

  get id(): string {
    return this.#entry.id;
  }

  get written(): number {
    return this.#deltas.length;
  }

  async write(delta: ReplyDelta): Promise<void> {
    this.#assertOpen();
    const content = checkDelta(delta);
    this.#deltas.push(content);
    this.#buffer.push(content);
    this.#bufferBytes += JSON.stringify(content).length;
    if (this.#bufferBytes >= this.#settings.maxBatchBytes) {
      await this.#flush();
    } else if (this.#flushTimer === undefined) {
      this.#flushTimer = setTimeout(() => {
        this.#flush().catch((error: unknown) => {
          this.#failure ??= error;
        });
      }, this.#settings.flushMs);
    }
  }

  end(final?: FinalForm): Promise<Message> {
    return this.#finishAs(final, [], undefined);
  }

  fail(error: unknown, final?: FinalForm): Promise<Message> {
    const reason = error instanceof Error ? error.message : String(error);
    const part: Content = { type: "error", message: redactSecrets(reason) };
    return this.#finishAs(final, [part], "interrupted");
  }

  /** Ends the reply with the deltas joined, or the writer's finished form, then `trailer`. */
  async #finishAs(
    final: FinalForm | undefined,
    trailer: Content[],
    status: "interrupted" | undefined,
  ): Promise<Message> {
    if (final === undefined) return this.#finish([...mergeDeltas(this.#deltas), ...trailer], status);
    this.#assertOpen();
    // Checked as append checks a message, before anything is written: a malformed form leaves the reply open.
    const checked = normalizeMessage({
      id: this.id,
      role: this.#entry.role,
      contents: [...(final.contents ?? mergeDeltas(this.#deltas)), ...trailer],
      ...(final.metadata === undefined ? {} : { metadata: final.metadata }),
    });
    return this.#finish(checked.contents, status, checked.metadata, final.contents !== undefined);
  }

  #assertOpen(): void {
    if (this.#threadGone !== undefined) throw this.#threadGone;
    if (this.#ended) throw new ReplyEndedError(this.#access.threadId, this.id, "ended");
    if (this.#leaseLost) throw new ReplyEndedError(this.#access.threadId, this.id, "lease-lapsed");
    if (this.#failure !== undefined) {
      const failure = this.#failure;
      this.#failure = undefined;
      throw failure;
    }
  }

  /** Writes the buffered deltas as the next batch, after any batch still being written. */
  #flush(kind: BatchKind = "deltas"): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const next = this.#flushing.then(() => this.#writeBatch(kind));
    // A failed batch is reported once, to the caller that waits for it; the next flush tries again.
    this.#flushing = next.catch(() => undefined);
    return next;
  }

  /** The buffered deltas as one batch; a heartbeat writes an empty batch when none is buffered (the lease). */
  async #writeBatch(kind: BatchKind): Promise<void> {
    // A timed flush or a heartbeat queued behind `end` finds the reply ended: the message lands without it
    // (its segment may be reclaimed already), unless `end` itself writes the last batch.
    if (this.#ended && kind !== "last") return;
    if (this.#buffer.length === 0 && kind !== "heartbeat") return;
    const deltas = this.#buffer;
    this.#buffer = [];
    this.#bufferBytes = 0;
    const index = this.#batches;
    this.#batched = true;
    try {
      await this.#access.driver.importSegment(
        this.#access.segmentInfo(this.#entry),
        [batchMessage(index, this.#entry.role, deltas)],
        index,
        // Followers must see it at once and it must outlive this process, but `end` lands the reply durably:
        // a store may skip its fsync or synchronous commit (the README's "durability of a partial reply").
        { owner: this.#access.owner, interim: true },
      );
    } catch (error) {
      // Not written: the deltas go back in front of the buffer, so the next flush writes them in order.
      this.#buffer = [...deltas, ...this.#buffer];
      this.#bufferBytes = JSON.stringify(this.#buffer).length;
      throw error;
    }
    this.#batches = index + 1;
    announce(this.#access.driver, this.#entry.segment);
  }

  /**
   * Lands the message. `flushLast`: the writer ended with contents of its own, which need not start with the
   * deltas, so the last deltas go to the segment as a batch first and a follower that keeps up gets every delta
   * as a delta. Else the message is the deltas joined and a follower completes what it read from it
   * (`landedRest`): the last batch would be one more write that the reclaim removes at once.
   */
  async #finish(
    contents: Content[],
    status: "interrupted" | undefined,
    metadata?: Message["metadata"],
    flushLast = false,
  ): Promise<Message> {
    this.#assertOpen();
    this.#ended = true;
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    let message: Message | undefined;
    try {
      // A batch still being written goes first: one written after the reclaim would be left behind.
      await (flushLast ? this.#flush("last") : this.#flushing);
      message = await this.#access.landReply(this.#entry, contents, status, metadata, this.#batched);
    } catch (error) {
      if (ThreadNotFoundError.isInstance(error)) {
        await this.#abandon(error);
        throw error;
      }
      // The store failed (unreachable, closed): nothing landed, the lease still runs, and `end` may be tried again.
      this.#ended = false;
      throw error;
    }
    clearInterval(this.#renewTimer);
    announce(this.#access.driver, this.#entry.segment);
    if (!message) {
      // The reader that ended it reclaimed the batches; a batch written since would have made them again.
      if (this.#batched) await this.#access.dropBatches(this.#entry);
      throw new ReplyEndedError(this.#access.threadId, this.id, "lease-lapsed");
    }
    return message;
  }

  /** A tick of the lease timer: learns if a reader ended the reply, else writes a heartbeat if one is due. */
  async #renew(): Promise<void> {
    if (this.#ended || this.#leaseLost) return;
    try {
      if (!(await this.#access.holds(this.#entry))) {
        this.#leaseLost = true;
        clearInterval(this.#renewTimer);
        return;
      }
      if (this.#batches === this.#batchesAtTick) await this.#flush("heartbeat");
      this.#batchesAtTick = this.#batches;
    } catch (error) {
      if (ThreadNotFoundError.isInstance(error)) await this.#abandon(error);
      // Else the store is unreachable for now: the next tick tries again, and the lease decides if it lasts.
    }
  }

  /**
   * The thread is gone: its delete reclaimed the segment the record named, but a batch written since (the
   * first one makes the segment) is referenced by nothing, so it is dropped here and the writer is told.
   */
  async #abandon(error: ThreadNotFoundError): Promise<void> {
    this.#threadGone = error;
    clearInterval(this.#renewTimer);
    clearTimeout(this.#flushTimer);
    this.#buffer = [];
    await this.#flushing;
    if (this.#batched) await this.#access.dropBatches(this.#entry);
  }
}
