import { CATALOGUE_KEY, catalogueOf } from "../catalogue/catalogue-fields.js";
import { quoteUntrusted } from "../errors.js";
import { isPlainObject, type JsonObject } from "../json.js";
import type { LogRecord, StateRecord, StoredRecord } from "../local/log-driver.js";
import type { Message } from "../message.js";
import type { HistoryEvent } from "../thread.js";
import type { SegmentLookup } from "./empty-continuations.js";
import { IntegrityError, KeyNotFoundError } from "./encryption-errors.js";
import type { KeyRing, RingKey } from "./key-ring.js";
import { checkEnd, END_FIELD, type RecordEnd, sealEnd, storedEnd } from "./record-end.js";
import {
  isSealedUnit,
  openText,
  openValue,
  type SealedUnit,
  sealText,
  sealValue,
  type UnitPosition,
} from "./sealed-unit.js";

/** The content type a sealed message stores its contents under: unknown to readers, so kept as it is. */
export const SEALED_CONTENT = "skein.sealed";
/** The field of a metadata, context or state object that holds the sealed whole. */
const SEALED_FIELD = "$sealed";
/** The field of a checkpoint that holds its sealed label. */
const SEALED_LABEL = "$label";

/**
 * Turns what thread-core hands a driver into what the store keeps, and back. What stays clear is what a
 * store must read to work: ids, roles (views keep system messages), timestamps, revisions, segment points,
 * a thread's owner (listing by owner) and a state's `$type`. Everything else is sealed, bound to where it is.
 * `owner` arguments say whose key seals (with per-owner keys; ignored otherwise); opening reads it from the unit.
 */
export class RecordCodec {
  /**
   * @param endBeside the driver keeps a record's end beside its context (`LogDriver.storesEnd`): ends are
   * written there, so an append changes no context; without it, in the context (`$end`).
   * @param segment the store's segment infos: an end written for a segment the record's head continues
   * without messages of its own still holds (`checkEnd`); without it, only an end written for the head does.
   */
  constructor(
    readonly ring: KeyRing,
    readonly endBeside = false,
    readonly segment?: SegmentLookup,
  ) {}

  /** The key new writes of `owner`'s threads use. */
  currentKey(owner: string | undefined): RingKey | Promise<RingKey> {
    return this.ring.currentKey(owner);
  }

  async sealMessage(message: Message, segment: string, offset: number, owner?: string): Promise<Message> {
    return this.sealMessageWith(await this.currentKey(owner), message, segment, offset);
  }

  /** `sealMessage` under `key` (the current key of the message's owner), for a caller that has it at hand. */
  sealMessageWith(key: RingKey, message: Message, segment: string, offset: number): Message {
    const { id, role, createdAt, ...rest } = message;
    const text = JSON.stringify(rest);
    const unit = sealText(text, messagePosition(segment, offset, message), key, { deterministic: true });
    const content = { type: SEALED_CONTENT, ...unit };
    const sealed = { id, role, createdAt, contents: [content] } as Message;
    // Remembered as it will be stored: the thread's next view reads it back without decrypting (while the
    // key is held: never plaintext under a key a shred forgot meanwhile).
    if (this.ring.holds(key)) this.ring.openedMessages.set(segment, offset, sealed, content, text, key);
    return sealed;
  }

  async openMessage(stored: Message, segment: string, offset: number): Promise<Message> {
    const sealed = sealedContent(stored, segment, offset, this.ring.allowPlaintext);
    if (!sealed) return stored;
    const remembered = this.#remembered(stored, segment, offset, sealed.unit);
    if (remembered) return remembered;
    const key = await this.ring.key(sealed.unit.key, sealed.unit.owner);
    return this.#opened(stored, segment, offset, sealed, key);
  }

  /** `openMessage` with keys already at hand, for a memory store's synchronous `JSON.stringify`. */
  openMessageNow(stored: Message, segment: string, offset: number): Message {
    const sealed = sealedContent(stored, segment, offset, this.ring.allowPlaintext);
    if (!sealed) return stored;
    const remembered = this.#remembered(stored, segment, offset, sealed.unit);
    if (remembered) return remembered;
    const key = this.ring.keyNow(sealed.unit.key, sealed.unit.owner);
    if (!key) throw new KeyNotFoundError(sealed.unit.key, { owner: sealed.unit.owner });
    return this.#opened(stored, segment, offset, sealed, key);
  }

  /**
   * The message, when exactly this unit was sealed or opened at this place before and the key that sealed it
   * is still held (a key forgotten since, as a shredded owner's, is asked for again and found missing).
   */
  #remembered(stored: Message, segment: string, offset: number, unit: SealedUnit): Message | undefined {
    const entry = this.ring.openedMessages.get(segment, offset, stored, unit);
    if (!entry || !this.ring.holds(entry.key)) return undefined;
    // Parsed again on every read: a caller may change the message it gets, never the remembered one.
    return openedMessage(stored, JSON.parse(entry.text));
  }

  #opened(
    stored: Message,
    segment: string,
    offset: number,
    { unit, describe }: { unit: SealedUnit; describe: () => string },
    key: RingKey,
  ): Message {
    const text = openText(unit, messagePosition(segment, offset, stored), key, describe);
    if (this.ring.holds(key)) this.ring.openedMessages.set(segment, offset, stored, unit, text, key);
    return openedMessage(stored, JSON.parse(text));
  }

  async sealMetadata(
    recordId: string,
    metadata: Record<string, unknown>,
    owner?: string,
  ): Promise<Record<string, unknown>> {
    return this.sealMetadataWith(await this.currentKey(owner), recordId, metadata);
  }

  /** `sealMetadata` under `key` (the current key of the thread's owner). */
  sealMetadataWith(
    key: RingKey,
    recordId: string,
    metadata: Record<string, unknown>,
  ): Record<string, unknown> {
    return { [SEALED_FIELD]: sealValue(metadata, ["metadata", recordId], key) };
  }

  /**
   * The context sealed whole, under its own owner's key; the owner alone is also kept clear, under the
   * catalogue key, for listing. The record's end (`placeEnd`) is added by whoever knows it.
   */
  async sealContext(recordId: string, context: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.sealContextWith(await this.currentKey(catalogueOf(context).owner), recordId, context);
  }

  /** `sealContext` under `key` (the current key of the context's owner). */
  sealContextWith(key: RingKey, recordId: string, context: Record<string, unknown>): Record<string, unknown> {
    const { owner } = catalogueOf(context);
    return {
      ...(owner === undefined ? {} : { [CATALOGUE_KEY]: { owner } }),
      [SEALED_FIELD]: sealValue(context, ["context", recordId], key),
    };
  }

  /**
   * Whether a stored context is sealed under the key new writes of its owner use. A writer that keeps a stored
   * context (an append rewrites only its end) seals it again when it is not: written back as it was read, it
   * would undo a rekey that moved it meanwhile, which changes no revision to fence on.
   */
  isCurrentContext(stored: Record<string, unknown>): boolean {
    const unit = stored[SEALED_FIELD];
    if (!isSealedUnit(unit) || unit.key !== this.ring.current) return false;
    return !this.ring.perOwner || unit.owner === catalogueOf(stored).owner;
  }

  /** Whether a stored context is sealed (under any key): one in clear (`allowPlaintext`) is not. */
  isSealedContext(stored: Record<string, unknown>): boolean {
    return isSealedUnit(stored[SEALED_FIELD]);
  }

  /** A stored (sealed) context with the end of `record` authenticated in it, replacing any earlier end. */
  async withEnd(sealedContext: Record<string, unknown>, record: RecordEnd): Promise<Record<string, unknown>> {
    return contextWithEnd(await this.currentKey(catalogueOf(sealedContext).owner), sealedContext, record);
  }

  /**
   * A stored (sealed) context and the end of `record` where this store keeps it: in `end` (`endBeside`),
   * the context then without any `$end` an older version left in it, or in the context.
   */
  async placeEnd(
    sealedContext: Record<string, unknown>,
    record: RecordEnd,
  ): Promise<{ context: Record<string, unknown>; end?: string }> {
    return this.placeEndWith(await this.currentKey(catalogueOf(sealedContext).owner), sealedContext, record);
  }

  /** `placeEnd` under `key` (the current key of the context's owner). */
  placeEndWith(
    key: RingKey,
    sealedContext: Record<string, unknown>,
    record: RecordEnd,
  ): { context: Record<string, unknown>; end?: string } {
    if (!this.endBeside) return { context: contextWithEnd(key, sealedContext, record) };
    const { [END_FIELD]: _previous, ...context } = sealedContext;
    return { context, end: this.sealedEndWith(key, record) };
  }

  /** The end of `record` as a driver with `storesEnd` keeps it (`LogRecord.end`): its MAC, as JSON text. */
  async sealedEnd(record: RecordEnd, owner: string | undefined): Promise<string> {
    return this.sealedEndWith(await this.currentKey(owner), record);
  }

  /** `sealedEnd` under `key` (the current key of the thread's owner). */
  sealedEndWith(key: RingKey, record: RecordEnd): string {
    return JSON.stringify(sealEnd(record, key));
  }

  async sealEvent(recordId: string, event: HistoryEvent, owner?: string): Promise<HistoryEvent> {
    if (event.kind !== "checkpoint" || event.checkpoint.label === undefined) return event;
    return this.sealEventWith(await this.currentKey(owner), recordId, event);
  }

  /** `sealEvent` under `key` (the current key of the thread's owner). */
  sealEventWith(key: RingKey, recordId: string, event: HistoryEvent): HistoryEvent {
    if (event.kind !== "checkpoint" || event.checkpoint.label === undefined) return event;
    const { label, ...checkpoint } = event.checkpoint;
    const unit = sealValue(label, labelPosition(recordId, checkpoint.id), key);
    return { ...event, checkpoint: { ...checkpoint, [SEALED_LABEL]: unit } as typeof checkpoint };
  }

  /**
   * The keys that sealed `record`'s units (its end, metadata, context and checkpoint labels, or a state),
   * as the ring holds them now: what a copy of its plaintext may be kept for. Undefined when one of them is
   * not held (forgotten since it was used), so nothing is kept.
   */
  heldKeysOf(record: StoredRecord): RingKey[] | undefined {
    if (record.kind === "state") return this.#heldKeys([record.state[SEALED_FIELD]]);
    const units = [storedEnd(record), record.metadata[SEALED_FIELD], record.context[SEALED_FIELD]];
    for (const event of record.events) units.push(labelUnit(event));
    return this.#heldKeys(units);
  }

  /** `heldKeysOf` for one stored event: its label's key, or none. */
  heldKeysOfEvent(event: HistoryEvent): RingKey[] | undefined {
    return this.#heldKeys([labelUnit(event)]);
  }

  #heldKeys(units: unknown[]): RingKey[] | undefined {
    const keys: RingKey[] = [];
    for (const unit of units) {
      // Absent (no label) or clear (the `allowPlaintext` window): no key is needed to read it.
      if (!isPlainObject(unit) || typeof unit.key !== "string") continue;
      const key = this.ring.keyNow(unit.key, typeof unit.owner === "string" ? unit.owner : undefined);
      if (!key) return undefined;
      if (!keys.includes(key)) keys.push(key);
    }
    return keys;
  }

  async openEvent(recordId: string, event: HistoryEvent): Promise<HistoryEvent> {
    if (event.kind !== "checkpoint") return event;
    const stored = event.checkpoint as typeof event.checkpoint & { [SEALED_LABEL]?: unknown };
    const describe = () =>
      `label of checkpoint ${quoteUntrusted(stored.id)} of thread ${quoteUntrusted(recordId)}`;
    if (stored.label !== undefined) {
      if (this.ring.allowPlaintext && stored[SEALED_LABEL] === undefined) return event;
      throw new IntegrityError(describe(), "it is not sealed");
    }
    const unit = stored[SEALED_LABEL];
    if (unit === undefined) return event;
    if (!isSealedUnit(unit)) throw new IntegrityError(describe(), "it is not a sealed unit");
    const label = openValue(
      unit,
      labelPosition(recordId, stored.id),
      await this.ring.key(unit.key, unit.owner),
      describe,
    );
    if (typeof label !== "string") throw new IntegrityError(describe(), "it does not hold text");
    const { [SEALED_LABEL]: _unit, ...checkpoint } = stored;
    return { ...event, checkpoint: { ...checkpoint, label } };
  }

  async sealLog(record: LogRecord): Promise<LogRecord> {
    return this.sealLogWith(await this.currentKey(catalogueOf(record.context).owner), record);
  }

  /** `sealLog` under `key` (the current key of the thread's owner). */
  sealLogWith(key: RingKey, record: LogRecord): LogRecord {
    const { end: _plain, ...fields } = record;
    return {
      ...fields,
      metadata: this.sealMetadataWith(key, record.id, record.metadata),
      ...this.placeEndWith(key, this.sealContextWith(key, record.id, record.context), record),
      events: record.events.map((event) => this.sealEventWith(key, record.id, event)),
    };
  }

  async sealState(id: string, state: JsonObject): Promise<JsonObject> {
    const owner = typeof state.owner === "string" ? state.owner : undefined;
    const unit = sealValue(state, ["state", id], await this.currentKey(owner));
    // `$type` and `owner` stay clear: a store lists a saved state by them.
    return {
      ...(state.$type === undefined ? {} : { $type: state.$type }),
      ...(typeof state.owner === "string" ? { owner: state.owner } : {}),
      ...(typeof state.createdAt === "string" ? { createdAt: state.createdAt } : {}),
      [SEALED_FIELD]: unit as unknown as JsonObject,
    };
  }

  /** The record as thread-core wrote it; `openEvents` opens the events (a caller may reuse opened ones). */
  async openRecord(
    record: StoredRecord,
    openEvents: (events: HistoryEvent[]) => Promise<HistoryEvent[]>,
  ): Promise<StoredRecord> {
    if (record.kind === "state") return this.openState(record);
    // Checked first: a record whose end does not match is not opened at all.
    await checkEnd(
      storedEnd(record),
      record,
      this.ring,
      this.ring.allowPlaintext && !isSealedUnit(record.context[SEALED_FIELD]),
      this.segment,
    );
    const metadata = await this.#openWhole(
      record.metadata,
      ["metadata", record.id],
      () => `metadata of thread ${quoteUntrusted(record.id)}`,
    );
    // A context stored in clear (the `allowPlaintext` window) holds its end beside it once it was appended to:
    // the end belongs to the stored form, never to the context a thread reads (or a rekey seals).
    const { [END_FIELD]: _end, ...context } = await this.#openWhole(
      record.context,
      ["context", record.id],
      () => `context of thread ${quoteUntrusted(record.id)}`,
    );
    // The end belongs to the stored form only, wherever it is kept.
    const { end: _stored, ...fields } = record;
    return { ...fields, metadata, context, events: await openEvents(record.events) };
  }

  async openState(record: StateRecord): Promise<StateRecord> {
    const state = await this.#openWhole(
      record.state,
      ["state", record.id],
      () => `state of ${quoteUntrusted(record.id)}`,
    );
    return { ...record, state: state as JsonObject };
  }

  async #openWhole(
    stored: Record<string, unknown>,
    position: UnitPosition,
    describe: () => string,
  ): Promise<Record<string, unknown>> {
    const unit = stored[SEALED_FIELD];
    if (!isSealedUnit(unit)) {
      // A record written before encryption was on, read in the migration window: as it is.
      if (this.ring.allowPlaintext && unit === undefined) return stored;
      throw new IntegrityError(describe(), "it is not sealed");
    }
    // A record read back unchanged (fs re-reads its record file on every view) is compared, not decrypted.
    const place = JSON.stringify(position);
    const remembered = this.ring.openedUnits.get(place, unit);
    let text: string;
    if (remembered && this.ring.holds(remembered.key)) text = remembered.text;
    else {
      const key = await this.ring.key(unit.key, unit.owner);
      text = openText(unit, position, key, describe);
      if (this.ring.holds(key)) this.ring.openedUnits.set(place, unit, text, key);
    }
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new IntegrityError(describe(), "it does not hold an object");
    }
    return value as Record<string, unknown>;
  }
}

/**
 * The sealed unit a stored message holds; `IntegrityError` when it holds anything else (plaintext written
 * outside skein), or undefined for plaintext in the migration window (`plaintextAllowed`).
 */
function sealedContent(
  stored: Message,
  segment: string,
  offset: number,
  plaintextAllowed: boolean,
): { unit: SealedUnit; describe: () => string } | undefined {
  const describe = () =>
    `message ${quoteUntrusted(stored.id)} at offset ${offset} of segment ${quoteUntrusted(segment)}`;
  const unit =
    Array.isArray(stored.contents) && stored.contents.length === 1 ? stored.contents[0] : undefined;
  if (!unit || unit.type !== SEALED_CONTENT || !isSealedUnit(unit)) {
    const sealedAnywhere =
      Array.isArray(stored.contents) && stored.contents.some((content) => content?.type === SEALED_CONTENT);
    if (plaintextAllowed && !sealedAnywhere) return undefined;
    throw new IntegrityError(describe(), "it is not sealed");
  }
  return { unit, describe };
}

/** A stored (sealed) context with the end of `record` authenticated in it, replacing any earlier end. */
function contextWithEnd(
  key: RingKey,
  sealedContext: Record<string, unknown>,
  record: RecordEnd,
): Record<string, unknown> {
  const { [END_FIELD]: _previous, ...rest } = sealedContext;
  return { ...rest, [END_FIELD]: sealEnd(record, key) };
}

/** The sealed unit of a stored checkpoint's label, if it has one. */
function labelUnit(event: HistoryEvent): unknown {
  return event.kind === "checkpoint"
    ? (event.checkpoint as typeof event.checkpoint & { [SEALED_LABEL]?: unknown })[SEALED_LABEL]
    : undefined;
}

function openedMessage(stored: Message, rest: unknown): Message {
  return {
    id: stored.id,
    role: stored.role,
    createdAt: stored.createdAt,
    ...(rest as Pick<Message, "contents">),
  };
}

// A message is bound to its segment and own offset (segments are shared by forks, so the segment, not the
// thread reading it, is its place), and to its clear id, role and creation time, so none can be changed
// either. A retry that stamps a message anew seals another unit for it; stores compare messages without
// `createdAt`, and the encrypting driver keeps the unit already stored when the plaintext is equal.
function messagePosition(segment: string, offset: number, message: Message): UnitPosition {
  return ["message", segment, offset, message.id, message.role, message.createdAt ?? null];
}

function labelPosition(recordId: string, checkpointId: string): UnitPosition {
  return ["label", recordId, checkpointId];
}
