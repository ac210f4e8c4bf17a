import { CATALOGUE_KEY, catalogueOf } from "../catalogue/catalogue-fields.js";
import { quoteUntrusted } from "../errors.js";
import type { JsonObject } from "../json.js";
import type { LogRecord, StateRecord, StoredRecord } from "../local/log-driver.js";
import type { Message } from "../message.js";
import type { HistoryEvent } from "../thread.js";
import { IntegrityError, KeyNotFoundError } from "./encryption-errors.js";
import type { KeyRing, RingKey } from "./key-ring.js";
import { isSealedUnit, openValue, type SealedUnit, sealValue, type UnitPosition } from "./sealed-unit.js";

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
 */
export class RecordCodec {
  constructor(readonly ring: KeyRing) {}

  /** The key new writes use. */
  currentKey(): RingKey | Promise<RingKey> {
    return this.ring.key(this.ring.current);
  }

  async sealMessage(message: Message, segment: string, offset: number): Promise<Message> {
    const { id, role, createdAt, ...rest } = message;
    const unit = sealValue(rest, messagePosition(segment, offset, message), await this.currentKey(), {
      deterministic: true,
    });
    return { id, role, createdAt, contents: [{ type: SEALED_CONTENT, ...unit }] };
  }

  async openMessage(stored: Message, segment: string, offset: number): Promise<Message> {
    const { unit, describe } = sealedContent(stored, segment, offset);
    return openedMessage(
      stored,
      openValue(unit, messagePosition(segment, offset, stored), await this.ring.key(unit.key), describe),
    );
  }

  /** `openMessage` with keys already at hand, for a memory store's synchronous `JSON.stringify`. */
  openMessageNow(stored: Message, segment: string, offset: number): Message {
    const { unit, describe } = sealedContent(stored, segment, offset);
    const key = this.ring.keyNow(unit.key);
    if (!key) throw new KeyNotFoundError(unit.key);
    return openedMessage(stored, openValue(unit, messagePosition(segment, offset, stored), key, describe));
  }

  async sealMetadata(recordId: string, metadata: Record<string, unknown>): Promise<Record<string, unknown>> {
    return { [SEALED_FIELD]: sealValue(metadata, ["metadata", recordId], await this.currentKey()) };
  }

  /** The context sealed whole; the owner alone is also kept clear, under the catalogue key, for listing. */
  async sealContext(recordId: string, context: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { owner } = catalogueOf(context);
    return {
      ...(owner === undefined ? {} : { [CATALOGUE_KEY]: { owner } }),
      [SEALED_FIELD]: sealValue(context, ["context", recordId], await this.currentKey()),
    };
  }

  async sealEvent(recordId: string, event: HistoryEvent): Promise<HistoryEvent> {
    if (event.kind !== "checkpoint" || event.checkpoint.label === undefined) return event;
    const { label, ...checkpoint } = event.checkpoint;
    const unit = sealValue(label, labelPosition(recordId, checkpoint.id), await this.currentKey());
    return { ...event, checkpoint: { ...checkpoint, [SEALED_LABEL]: unit } as typeof checkpoint };
  }

  async openEvent(recordId: string, event: HistoryEvent): Promise<HistoryEvent> {
    if (event.kind !== "checkpoint") return event;
    const stored = event.checkpoint as typeof event.checkpoint & { [SEALED_LABEL]?: unknown };
    const describe = () =>
      `label of checkpoint ${quoteUntrusted(stored.id)} of thread ${quoteUntrusted(recordId)}`;
    if (stored.label !== undefined) throw new IntegrityError(describe(), "it is not sealed");
    const unit = stored[SEALED_LABEL];
    if (unit === undefined) return event;
    if (!isSealedUnit(unit)) throw new IntegrityError(describe(), "it is not a sealed unit");
    const label = openValue(
      unit,
      labelPosition(recordId, stored.id),
      await this.ring.key(unit.key),
      describe,
    );
    if (typeof label !== "string") throw new IntegrityError(describe(), "it does not hold text");
    const { [SEALED_LABEL]: _unit, ...checkpoint } = stored;
    return { ...event, checkpoint: { ...checkpoint, label } };
  }

  async sealLog(record: LogRecord): Promise<LogRecord> {
    return {
      ...record,
      metadata: await this.sealMetadata(record.id, record.metadata),
      context: await this.sealContext(record.id, record.context),
      events: await Promise.all(record.events.map((event) => this.sealEvent(record.id, event))),
    };
  }

  async sealState(id: string, state: JsonObject): Promise<JsonObject> {
    const unit = sealValue(state, ["state", id], await this.currentKey());
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
    const metadata = await this.#openWhole(
      record.metadata,
      ["metadata", record.id],
      () => `metadata of thread ${quoteUntrusted(record.id)}`,
    );
    const context = await this.#openWhole(
      record.context,
      ["context", record.id],
      () => `context of thread ${quoteUntrusted(record.id)}`,
    );
    return { ...record, metadata, context, events: await openEvents(record.events) };
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
    if (!isSealedUnit(unit)) throw new IntegrityError(describe(), "it is not sealed");
    const value = openValue(unit, position, await this.ring.key(unit.key), describe);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new IntegrityError(describe(), "it does not hold an object");
    }
    return value as Record<string, unknown>;
  }
}

/** The sealed unit a stored message holds; `IntegrityError` when it holds anything else (plaintext written outside skein). */
function sealedContent(
  stored: Message,
  segment: string,
  offset: number,
): { unit: SealedUnit; describe: () => string } {
  const describe = () =>
    `message ${quoteUntrusted(stored.id)} at offset ${offset} of segment ${quoteUntrusted(segment)}`;
  const unit =
    Array.isArray(stored.contents) && stored.contents.length === 1 ? stored.contents[0] : undefined;
  if (!unit || unit.type !== SEALED_CONTENT || !isSealedUnit(unit))
    throw new IntegrityError(describe(), "it is not sealed");
  return { unit, describe };
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
// thread reading it, is its place), and to its clear id and role, so neither can be changed either. Not to
// `createdAt`: stores treat a message that differs only in it as the same message (a retry stamps it anew),
// so it must not change the sealed unit; its timestamp is the one clear field a writer outside skein can change.
function messagePosition(segment: string, offset: number, message: Message): UnitPosition {
  return ["message", segment, offset, message.id, message.role];
}

function labelPosition(recordId: string, checkpointId: string): UnitPosition {
  return ["label", recordId, checkpointId];
}
