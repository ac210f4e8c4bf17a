import { type ConflictError, type Message, messageConflict } from "@skein/thread-core";

/**
 * The messages of one append as the commit script takes them: each id once, a repeat within the batch
 * compared with its first. Messages the head holds already come back from the script as stored; they are
 * compared here (fingerprints are computed only then, never per append) and left out of the next try.
 */
export class AppendBatch {
  readonly #unique: Message[] = [];
  /** Per input, the index of its message in `#unique`. */
  readonly #slots: number[] = [];
  /** Per unique message, the copy the head held already, once the script reported one. */
  readonly #stored: Array<Message | undefined> = [];
  /** The unique indexes sent in the last `pending()`, in order. */
  #sent: number[] = [];
  /**
   * The error for a batch that repeats an id with other content. It is thrown only after the store has
   * checked the thread, its revision and its head, so that those errors come first, as on every store.
   */
  readonly conflict: ConflictError | undefined;

  constructor(inputs: Message[]) {
    const first = new Map<string, number>();
    for (const message of inputs) {
      const at = first.get(message.id);
      if (at === undefined) {
        first.set(message.id, this.#unique.length);
        this.#slots.push(this.#unique.length);
        this.#unique.push(message);
      } else {
        this.conflict ??= messageConflict(this.#unique[at] as Message, message, SOURCE);
        this.#slots.push(at);
      }
    }
  }

  /** The messages still to write. */
  pending(): Message[] {
    this.#sent = [];
    for (let index = 0; index < this.#unique.length; index++) {
      if (this.#stored[index] === undefined) this.#sent.push(index);
    }
    return this.#sent.map((index) => this.#unique[index] as Message);
  }

  /** Takes a "seen" reply (1-based item of the last `pending()`, stored JSON, …); throws if one differs. */
  settle(seen: unknown[]): void {
    for (let index = 0; index + 1 < seen.length; index += 2) {
      const unique = this.#sent[Number(seen[index]) - 1] as number;
      const stored = JSON.parse(seen[index + 1] as string) as Message;
      assertSame(stored, this.#unique[unique] as Message);
      this.#stored[unique] = stored;
    }
  }

  /** Every input as stored, in input order. */
  stored(): Message[] {
    return this.#slots.map((index) => this.#stored[index] ?? (this.#unique[index] as Message));
  }
}

const SOURCE = "adapter-redis";

function assertSame(stored: Message, message: Message): void {
  const conflict = messageConflict(stored, message, SOURCE);
  if (conflict) throw conflict;
}
