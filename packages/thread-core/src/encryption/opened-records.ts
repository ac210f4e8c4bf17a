import type { LogRecord, StoredRecord } from "../local/log-driver.js";
import type { HistoryEvent } from "../thread.js";
import type { KeyRing, RingKey } from "./key-ring.js";

interface Opened<Value> {
  readonly value: Value;
  /** Every key that opened (or sealed) what `value` holds. */
  readonly keys: readonly RingKey[];
}

/**
 * What an encrypting driver handed up, by the stored objects its inner driver gave: a driver that answers
 * a read with the record it was given (`LogDriver.read`'s `known`, as Redis, PostgreSQL and fs do while
 * the record is unchanged) costs no decryption, nor does a checkpoint list read again. An entry is served
 * only while the ring still holds every key that opened it: a crypto-shredded owner's keys are forgotten,
 * and with them whatever they opened, as `opened-units.ts` and `opened-messages.ts` do.
 */
export class OpenedRecords {
  #records = new WeakMap<StoredRecord, Opened<StoredRecord>>();
  /** The stored form of every log record handed up, so a caller's `known` goes down as the inner driver gave it. */
  readonly #stored = new WeakMap<LogRecord, LogRecord>();
  /** Events opened, by the stored event, with the record they were opened for (a label is bound to it). */
  #events = new WeakMap<HistoryEvent, Opened<HistoryEvent> & { recordId: string }>();

  constructor(readonly ring: KeyRing) {}

  /** The record opened from `stored`, while every key that opened it is held. */
  opened(stored: StoredRecord): StoredRecord | undefined {
    const entry = this.#records.get(stored);
    return entry && this.#held(entry.keys) ? entry.value : undefined;
  }

  /**
   * Remembers that `stored` holds `record`, opened (or sealed) with `keys`; without keys, or with one the ring
   * no longer holds (forgotten while it was opened: a shred), its plaintext is not kept, only its stored form.
   */
  remember(record: StoredRecord, stored: StoredRecord, keys: readonly RingKey[] | undefined): void {
    if (record.kind === "log") this.#stored.set(record, stored as LogRecord);
    if (keys && this.#held(keys)) this.#records.set(stored, { value: record, keys });
  }

  /** The stored form of a log record this driver handed up, or undefined for any other object. */
  storedForm(record: LogRecord): LogRecord | undefined {
    return this.#stored.get(record);
  }

  /**
   * The stored form of a log record this driver handed up, while its plaintext is kept and every key that
   * opened it is still held: a base a change may be planned and sealed on (never one a shred made unreadable).
   */
  heldStoredForm(record: LogRecord): LogRecord | undefined {
    const stored = this.#stored.get(record);
    const keys = stored && this.#records.get(stored)?.keys;
    return keys && this.#held(keys) ? stored : undefined;
  }

  /** The keys that opened a log record this driver handed up, when its plaintext is kept. */
  keysOf(record: LogRecord): readonly RingKey[] | undefined {
    const stored = this.#stored.get(record);
    return stored && this.#records.get(stored)?.keys;
  }

  /** The event opened from `stored` for record `recordId`, while the key of its label is held. */
  openedEvent(stored: HistoryEvent, recordId: string): HistoryEvent | undefined {
    const entry = this.#events.get(stored);
    return entry?.recordId === recordId && this.#held(entry.keys) ? entry.value : undefined;
  }

  rememberEvent(
    event: HistoryEvent,
    stored: HistoryEvent,
    recordId: string,
    keys: RingKey[] | undefined,
  ): void {
    if (keys && this.#held(keys)) this.#events.set(stored, { value: event, keys, recordId });
  }

  /**
   * Forgets every record and event opened (their stored forms stay): called when an owner's keys are
   * forgotten, so that no plaintext they opened stays reachable from a stored object a backend still holds.
   * A weak map cannot be walked by owner; the other owners' records are opened again on their next read.
   */
  forgetOpened(): void {
    this.#records = new WeakMap();
    this.#events = new WeakMap();
  }

  #held(keys: readonly RingKey[]): boolean {
    for (const key of keys) if (!this.ring.holds(key)) return false;
    return true;
  }
}
