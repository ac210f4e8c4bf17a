import type { CatalogueQuery, CountQuery } from "../catalogue/list-query.js";
import {
  ConcurrencyError,
  ConflictError,
  HeadMovedError,
  StoreClosedError,
  ThreadExistsError,
  ThreadNotFoundError,
} from "../errors.js";
import { cloneJson, type JsonObject } from "../json.js";
import { importConflicts } from "../local/import-conflicts.js";
import {
  type CommitResult,
  eventSegments,
  type LogChange,
  type LogDriver,
  type LogRecord,
  type MessageRewrite,
  type RecordRewrite,
  type RecordSummary,
  type SegmentInfo,
  type StateRecord,
  type StoredRecord,
} from "../local/log-driver.js";
import type { SyncSegmentReader } from "../local/scoped-log-driver.js";
import { type Message, messageConflict } from "../message.js";
import type { ExpiryQuery } from "../spec/log-driver.js";
import type { HistoryEvent } from "../thread.js";
import { MemoryCatalogue } from "./memory-catalogue.js";
import { MemoryExpiryIndex } from "./memory-expiry-index.js";
import {
  copyRecord,
  deepFreeze,
  emptySegment,
  freezeEvents,
  heldMessages,
  type MemorySegment,
  messageAt,
  pushMessage,
} from "./memory-segment.js";
import { CACHED_READ_MAX, ParsedMessages } from "./parsed-messages.js";

export class MemoryLogDriver implements LogDriver, SyncSegmentReader {
  readonly specificationVersion = "v1";
  readonly source = "thread-core";
  readonly nativeType = "memory";
  readonly #records = new Map<string, StoredRecord>();
  /** The head segment of every log record: a head is never extended by an import (O(1), not a walk of records). */
  readonly #heads = new Set<string>();
  readonly #segments = new Map<string, MemorySegment>();
  readonly #references = new Map<string, number>();
  /** Every record by owner and order, for `store.list`. */
  readonly #catalogue = new MemoryCatalogue();
  /** Records with their own `expiresAt`, by it, for sweeps. */
  readonly #expiry = new MemoryExpiryIndex();
  /** Recently read messages, parsed: bounded per store (see ParsedMessages). */
  readonly parsed = new ParsedMessages();
  #closed = false;

  async read(id: string): Promise<StoredRecord | undefined> {
    return this.readNow(id);
  }

  /** Synchronous read, so `toJSON` of a memory thread can export its log. */
  readNow(id: string): StoredRecord | undefined {
    this.#assertOpen();
    const record = this.#records.get(id);
    return record && copyRecord(record);
  }

  async createLog(record: LogRecord, head: SegmentInfo): Promise<void> {
    this.#assertOpen();
    if (this.#records.has(record.id)) throw new ThreadExistsError(record.id);
    this.#addSegment(head);
    const stored: LogRecord = {
      ...copyRecord(record),
      events: freezeEvents(cloneJson(record.events)),
      ...(record.operations ? { operations: deepFreeze(cloneJson(record.operations)) } : {}),
    };
    this.#records.set(record.id, stored);
    this.#heads.add(stored.head);
    this.#catalogue.put(stored);
    this.#expiry.put(stored);
    this.#retainRecord(record);
  }

  async commit(id: string, change: LogChange): Promise<CommitResult> {
    this.#assertOpen();
    const stored = this.#records.get(id);
    if (stored?.kind !== "log") throw new ThreadNotFoundError(id);
    if (change.ifRevision !== undefined && change.ifRevision !== stored.revision) {
      throw new ConcurrencyError(id, change.ifRevision, stored.revision);
    }
    if (stored.head !== change.expectHead) throw new HeadMovedError(id);
    const record = copyRecord(stored);
    const event = change.event && cloneJson(change.event);
    const append = change.append ?? [];
    // A new head is empty; the current one may hold some ids already (a retry): then nothing is written.
    const current = change.newHead ? undefined : (this.#segments.get(stored.head) as MemorySegment);
    const held = current ? heldMessages(current, append) : [];
    if (held.length > 0) return { record: copyRecord(stored), messages: [], held };
    let changed = false;
    if (change.newHead) {
      if (event?.kind === "rollback") event.from = this.#end(record);
      this.#addSegment(change.newHead);
      record.head = change.newHead.id;
      record.length = change.newHead.start;
      changed = true;
    }
    const head = this.#segments.get(record.head) as MemorySegment;
    const messages: Message[] = [];
    for (const message of append) {
      messages.push(pushMessage(head, message));
      record.length++;
      changed = true;
    }
    if (event?.kind === "checkpoint") event.checkpoint.point = this.#end(record);
    if (change.metadata) record.metadata = cloneJson(change.metadata);
    if (change.context) record.context = cloneJson(change.context);
    if (change.end !== undefined) record.end = change.end;
    if (change.operations) {
      // Entries kept from the stored record are frozen already: shared, so a commit copies only the new one.
      record.operations = Object.freeze(
        change.operations.map((operation) =>
          Object.isFrozen(operation) ? operation : deepFreeze(cloneJson(operation)),
        ),
      ) as typeof change.operations;
    }
    changed ||= Boolean(event || change.metadata || change.context || change.operations);
    if (changed) {
      record.revision++;
      record.updatedAt = new Date().toISOString();
      if (event) {
        event.revision = record.revision;
        // The stored events are frozen already and shared: only the new one is frozen, not the whole history.
        record.events = Object.freeze([...record.events, deepFreeze(event)]) as HistoryEvent[];
        this.#retainEvent(event);
      }
      if (change.newHead) {
        this.#retain(change.newHead.id);
        this.#release(stored.head);
        this.#heads.delete(stored.head);
        this.#heads.add(change.newHead.id);
      }
      this.#records.set(id, record);
      this.#catalogue.put(record, stored);
      this.#expiry.put(record, stored);
    }
    return { record: copyRecord(record), messages };
  }

  async putState(id: string, state: JsonObject, options: { ifRevision?: number } = {}): Promise<StateRecord> {
    this.#assertOpen();
    const existing = this.#records.get(id);
    if (existing?.kind === "log") {
      throw new ConflictError(
        `Thread ${JSON.stringify(id)} is a local thread of this store; its state is its log.`,
      );
    }
    const revision = existing?.revision ?? 0;
    if (options.ifRevision !== undefined && options.ifRevision !== revision) {
      throw new ConcurrencyError(id, options.ifRevision, revision);
    }
    const record: StateRecord = {
      kind: "state",
      id,
      revision: revision + 1,
      updatedAt: new Date().toISOString(),
      state: cloneJson(state),
    };
    this.#records.set(id, record);
    this.#catalogue.put(record, existing);
    return cloneJson(record);
  }

  readonly fencedDelete = true;
  readonly storesEnd = true;

  async delete(id: string, options: { ifRevision?: number } = {}): Promise<boolean> {
    this.#assertOpen();
    const record = this.#records.get(id);
    if (!record) return false;
    if (options.ifRevision !== undefined && options.ifRevision !== record.revision) {
      throw new ConcurrencyError(id, options.ifRevision, record.revision);
    }
    this.#records.delete(id);
    this.#catalogue.remove(record);
    this.#expiry.remove(record);
    if (record.kind === "log") {
      this.#heads.delete(record.head);
      this.#release(record.head);
      for (const event of record.events) this.#releaseEvent(event);
    }
    return true;
  }

  async list(options: { prefix?: string; after?: string; limit: number }): Promise<RecordSummary[]> {
    this.#assertOpen();
    const prefix = options.prefix ?? "";
    return [...this.#records.values()]
      .filter(
        (record) =>
          record.id.startsWith(prefix) && (options.after === undefined || record.id > options.after),
      )
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, options.limit)
      .map((record) => ({
        id: record.id,
        type: record.kind === "log" ? record.type : String(record.state.$type),
        updatedAt: record.updatedAt,
      }));
  }

  async catalogue(query: CatalogueQuery): Promise<StoredRecord[]> {
    this.#assertOpen();
    return this.#catalogue.page(query, (id) => this.#records.get(id)).map((record) => copyRecord(record));
  }

  async expiring(query: ExpiryQuery): Promise<StoredRecord[]> {
    this.#assertOpen();
    return this.#expiry.page(query, (id) => this.#records.get(id)).map((record) => copyRecord(record));
  }

  async countCatalogue(query: CountQuery): Promise<number> {
    this.#assertOpen();
    return this.#catalogue.count(query, (id) => this.#records.get(id));
  }

  async segment(id: string): Promise<SegmentInfo | undefined> {
    const segment = this.#segments.get(id);
    return segment && { ...segment.info, base: segment.info.base && { ...segment.info.base } };
  }

  async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    return this.readSegmentNow(id, from, to);
  }

  readSegmentNow(id: string, from: number, to: number): Message[] {
    this.#assertOpen();
    const segment = this.#segments.get(id);
    if (!segment) return [];
    const messages: Message[] = [];
    const start = Math.max(0, from);
    const end = Math.min(to, segment.texts.length);
    // A short read (the newest messages, one by id) is what callers repeat: it goes through the parsed cache.
    if (end - start <= CACHED_READ_MAX) {
      for (let offset = start; offset < end; offset++) {
        messages.push(this.parsed.copyOf(segment, offset));
      }
    } else {
      for (let offset = start; offset < end; offset++) messages.push(messageAt(segment, offset));
    }
    return messages;
  }

  segmentNow(id: string): SegmentInfo | undefined {
    return this.#segments.get(id)?.info;
  }

  async locate(id: string, messageId: string, before: number) {
    const segment = this.#segments.get(id);
    const offset = segment?.index.get(messageId);
    if (segment === undefined || offset === undefined || offset >= before) return undefined;
    return { offset };
  }

  async systemOffsets(id: string, before: number): Promise<number[]> {
    return (this.#segments.get(id)?.system ?? []).filter((offset) => offset < before);
  }

  async importSegment(info: SegmentInfo, messages: Message[], from: number): Promise<void> {
    this.#assertOpen();
    const refuse = importConflicts(info.id, this.source);
    let segment = this.#segments.get(info.id);
    if (!segment) {
      if (from !== 0) throw refuse.missingStart(from);
      segment = this.#addSegment(info);
      this.#references.set(info.id, 0);
    }
    // Check everything first, so a refused import writes nothing.
    const existing = Math.max(0, Math.min(messages.length, segment.texts.length - from));
    for (let index = 0; index < existing; index++) {
      const stored = messageAt(segment, from + index);
      const message = messages[index] as Message;
      if (stored.id !== message.id) {
        throw refuse.otherMessage(from + index, message.id);
      }
      // The same id with other content: an import never keeps the stored text silently.
      const conflict = messageConflict(stored, message);
      if (conflict) throw conflict;
    }
    const fresh = messages.slice(existing);
    if (fresh.length === 0) return;
    if (from + existing !== segment.texts.length) {
      throw refuse.gap(from + existing);
    }
    if (this.#isLiveHead(info.id)) {
      throw refuse.liveHead();
    }
    for (const message of fresh) pushMessage(segment, message);
  }

  async dropSegment(id: string): Promise<void> {
    this.#assertOpen();
    if (!this.#segments.has(id) || this.#heads.has(id) || (this.#references.get(id) ?? 0) > 0) return;
    // Its own (zero) count made one, so releasing it frees it and its base's reference in turn.
    this.#references.set(id, 1);
    this.#release(id);
  }

  /** See `LogDriver.rewriteMessages`: each one a synchronous step, so atomic. */
  async rewriteMessages(segmentId: string, rewrites: readonly MessageRewrite[]): Promise<boolean[]> {
    this.#assertOpen();
    const segment = this.#segments.get(segmentId);
    const done = rewrites.map(({ offset, expected, replacement }) => {
      if (!segment || segment.texts[offset] !== JSON.stringify(expected)) return false;
      if (replacement.id !== expected.id || replacement.role !== expected.role) return false;
      segment.texts[offset] = JSON.stringify(replacement);
      return true;
    });
    // What was kept parsed is the old form: it reads the same, but the old form must not outlive the rewrite.
    if (segment && done.includes(true)) this.parsed.forget(segment);
    return done;
  }

  /** See `LogDriver.rewriteRecord`. */
  async rewriteRecord(id: string, rewrite: RecordRewrite): Promise<boolean> {
    this.#assertOpen();
    const stored = this.#records.get(id);
    const same = (held: unknown, expected: unknown) => JSON.stringify(held) === JSON.stringify(expected);
    const { metadata, context } = rewrite;
    if (
      stored?.kind !== "log" ||
      (metadata && !same(stored.metadata, metadata.expected)) ||
      (context && !same(stored.context, context.expected)) ||
      (rewrite.end && stored.end !== rewrite.end.expected) ||
      rewrite.events.some(({ index, expected }) => !same(stored.events[index], expected))
    ) {
      return false;
    }
    const events = [...stored.events];
    for (const { index, replacement } of rewrite.events) events[index] = cloneJson(replacement);
    // A history whose ends are the same objects is taken for the same history (`continuedHistory`): a copy of
    // the last event tells readers' indexes this one changed in the middle.
    const last = events.length - 1;
    if (rewrite.events.length > 0 && last >= 0 && events[last] === stored.events[last]) {
      events[last] = cloneJson(events[last] as HistoryEvent);
    }
    const record: LogRecord = {
      ...stored,
      ...(metadata ? { metadata: cloneJson(metadata.replacement) } : {}),
      ...(context ? { context: cloneJson(context.replacement) } : {}),
      ...(rewrite.end ? { end: rewrite.end.replacement } : {}),
      events: freezeEvents(events),
    };
    this.#records.set(id, record);
    this.#catalogue.put(record, stored);
    return true;
  }

  async close(): Promise<void> {
    this.#closed = true;
    // A closed store reads nothing more: what it kept parsed is only heap.
    this.parsed.clear();
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError();
  }

  #addSegment(info: SegmentInfo): MemorySegment {
    const segment = emptySegment(cloneJson(info));
    this.#segments.set(info.id, segment);
    if (info.base) this.#retain(info.base.segment);
    return segment;
  }

  #isLiveHead(segmentId: string): boolean {
    return this.#heads.has(segmentId);
  }

  #end(record: LogRecord) {
    const start = (this.#segments.get(record.head) as MemorySegment).info.start;
    return { segment: record.head, offset: record.length - start, position: record.length };
  }

  #retainRecord(record: LogRecord): void {
    this.#retain(record.head);
    for (const event of record.events) this.#retainEvent(event);
  }

  #retainEvent(event: HistoryEvent): void {
    for (const segment of eventSegments(event)) this.#retain(segment);
  }

  #releaseEvent(event: HistoryEvent): void {
    for (const segment of eventSegments(event)) this.#release(segment);
  }

  #retain(segmentId: string): void {
    this.#references.set(segmentId, (this.#references.get(segmentId) ?? 0) + 1);
  }

  #release(segmentId: string): void {
    let current: string | undefined = segmentId;
    while (current !== undefined) {
      const count = (this.#references.get(current) ?? 0) - 1;
      if (count > 0) {
        this.#references.set(current, count);
        return;
      }
      const segment = this.#segments.get(current);
      this.#references.delete(current);
      this.#segments.delete(current);
      if (segment) this.parsed.forget(segment);
      current = segment?.info.base?.segment;
    }
  }
}
