import { type ConflictError, SkeinError } from "../errors.js";
import { type Message, messageConflict } from "../message.js";

/**
 * The one append algorithm of every local store. It decides, once, what a batch means: each id is written
 * once (a repeat within the batch is compared with its first occurrence), an id the log holds already (in an
 * ancestor segment, or in the head as the driver reports it) is compared with the stored message, equal
 * repeats are skipped and a different one is a `ConflictError`. Message fingerprints are computed only where
 * ids meet, never per append. A driver only stores `pending()` and reports the ids its head holds already.
 */
export class AppendPlan {
  readonly #unique: Message[] = [];
  /** Per input, the index of its message in `#unique`. */
  readonly #slots: number[] = [];
  /** Per unique message, the stored copy once the log was found to hold its id. */
  readonly #held: Array<Message | undefined> = [];
  readonly #byId = new Map<string, number>();
  /**
   * A repeat within the batch with other content. The caller throws it only after the thread and its
   * revision check out, so a stale `ifRevision` is reported first on every store.
   */
  readonly conflict: ConflictError | undefined;

  constructor(
    items: Message[],
    readonly source: string,
  ) {
    let conflict: ConflictError | undefined;
    for (const message of items) {
      const at = this.#byId.get(message.id);
      if (at === undefined) {
        this.#byId.set(message.id, this.#unique.length);
        this.#slots.push(this.#unique.length);
        this.#unique.push(message);
      } else {
        conflict ??= messageConflict(this.#unique[at] as Message, message, source);
        this.#slots.push(at);
      }
    }
    this.conflict = conflict;
  }

  /** The messages still to write: each id once, none the log was found to hold. */
  pending(): Message[] {
    return this.#unique.filter((_, index) => this.#held[index] === undefined);
  }

  /**
   * Takes messages the log holds under ids of this batch; throws a `ConflictError` if one differs from its
   * input. Throws a `SkeinError` if none of them is pending, since a driver's answer must make progress.
   */
  settle(held: ReadonlyArray<Message>): void {
    let progress = false;
    for (const stored of held) {
      const index = this.#byId.get(stored.id);
      if (index === undefined || this.#held[index] !== undefined) continue;
      const conflict = messageConflict(stored, this.#unique[index] as Message, this.source);
      if (conflict) throw conflict;
      this.#held[index] = stored;
      progress = true;
    }
    if (held.length > 0 && !progress) {
      throw new SkeinError("The store reported held messages that were not pending; it is damaged.", {
        source: this.source,
      });
    }
  }

  /** Every input as stored, in input order, given the driver's stored copies of the last `pending()`. */
  stored(written: ReadonlyArray<Message>): Message[] {
    const writtenById = new Map(written.map((message) => [message.id, message]));
    return this.#slots.map((index) => {
      const message = this.#unique[index] as Message;
      return this.#held[index] ?? writtenById.get(message.id) ?? message;
    });
  }
}
