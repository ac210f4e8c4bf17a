import type { CatalogueQuery, CountQuery } from "../catalogue/list-query.js";
import { SkeinError } from "../errors.js";
import { assertThreadId, newRandomId } from "../ids.js";
import type { JsonObject } from "../json.js";
import type { Message } from "../message.js";
import type { ExpiryQuery } from "../spec/log-driver.js";
import type { HistoryEvent, LogPoint } from "../thread.js";
import type {
  CommitResult,
  LogChange,
  LogDriver,
  LogRecord,
  RecordSummary,
  SegmentInfo,
  SegmentWriteOptions,
  StateRecord,
  StoredRecord,
} from "./log-driver.js";
import { MappedHistories } from "./mapped-histories.js";

/**
 * A control character: never part of a valid id, so no id can spell another scope's key. Scoped keys
 * start with it and therefore sort before every unscoped id.
 */
export const SCOPE_SEPARATOR = "\u001f";
/** Sorts after every key that starts with the separator and a scope name, before every unscoped id. */
export const AFTER_SCOPED_KEYS = `${SCOPE_SEPARATOR}\uffff`;

/** Reads a memory driver offers synchronously, for `JSON.stringify` of memory threads. */
export interface SyncSegmentReader {
  segmentNow(id: string): SegmentInfo | undefined;
  readSegmentNow(id: string, from: number, to: number): Message[];
}

/**
 * One tenant's view of a driver: thread ids and segment ids are prefixed with the scope, so nothing of
 * another scope (or of the unscoped store) can be named, read, listed or overwritten from here.
 */
export class ScopedLogDriver implements LogDriver, SyncSegmentReader {
  readonly specificationVersion = "v1";
  readonly #prefix: string;
  /** Events arrays mapped before, both ways: a commit maps only the event it records, if any. */
  readonly #eventsIn = new MappedHistories();
  readonly #eventsOut = new MappedHistories();

  constructor(
    readonly inner: LogDriver,
    readonly scope: string,
  ) {
    assertThreadId(scope);
    this.#prefix = `${SCOPE_SEPARATOR}${scope}${SCOPE_SEPARATOR}`;
    this.#eventsIn.reverse = this.#eventsOut;
    this.#eventsOut.reverse = this.#eventsIn;
  }

  get source(): string {
    return this.inner.source;
  }
  get nativeType(): string {
    return this.inner.nativeType;
  }

  async read(id: string, known?: LogRecord): Promise<StoredRecord | undefined> {
    const record = await this.#outside(this.inner.read(this.#in(id), known && this.#logIn(known)));
    return this.#recordOut(record);
  }

  async createLog(record: LogRecord, head: SegmentInfo): Promise<void> {
    await this.#outside(this.inner.createLog(this.#logIn(record), this.#segmentIn(head)));
  }

  async commit(id: string, change: LogChange): Promise<CommitResult> {
    const result = await this.#outside(
      this.inner.commit(this.#in(id), {
        ...change,
        expectHead: this.#in(change.expectHead),
        ...(change.newHead ? { newHead: this.#segmentIn(change.newHead) } : {}),
        ...(change.event ? { event: mapEvent(change.event, (segment) => this.#in(segment)) } : {}),
        ...(change.known ? { known: this.#logIn(change.known) } : {}),
        ...(change.reclaim === undefined ? {} : { reclaim: this.#in(change.reclaim) }),
      }),
    );
    return { ...result, record: this.#recordOut(result.record) as LogRecord };
  }

  async putState(id: string, state: JsonObject, options?: { ifRevision?: number }): Promise<StateRecord> {
    return this.#recordOut(
      await this.#outside(this.inner.putState(this.#in(id), state, options)),
    ) as StateRecord;
  }

  get fencedDelete(): boolean {
    return this.inner.fencedDelete === true;
  }

  get reclaimsInCommit(): boolean {
    return this.inner.reclaimsInCommit === true;
  }

  get erasureFollowUp(): string | undefined {
    return this.inner.erasureFollowUp;
  }

  /** Scrubs the whole store's index: it only forgets places of threads the owner no longer has a record of. */
  get forgetOwner(): ((owner: string) => Promise<void>) | undefined {
    const inner = this.inner;
    if (!inner.forgetOwner) return undefined;
    return (owner) => inner.forgetOwner?.(owner) ?? Promise.resolve();
  }

  delete(id: string, options?: { ifRevision?: number }): Promise<boolean> {
    return this.#outside(this.inner.delete(this.#in(id), options));
  }

  async list(options: { prefix?: string; after?: string; limit: number }): Promise<RecordSummary[]> {
    const items = await this.inner.list({
      prefix: this.#in(options.prefix ?? ""),
      after: options.after === undefined ? undefined : this.#in(options.after),
      limit: options.limit,
    });
    return items
      .filter((item) => item.id.startsWith(this.#prefix))
      .map((item) => ({ ...item, id: this.#out(item.id) }));
  }

  /** The inner driver's catalogue, asked for this scope's records; absent when the inner driver has none. */
  get catalogue(): ((query: CatalogueQuery) => Promise<StoredRecord[]>) | undefined {
    const inner = this.inner;
    if (!inner.catalogue) return undefined;
    return async (query) => {
      const records = await inner.catalogue?.({
        ...query,
        scope: this.#prefix + query.scope,
        ...(query.after ? { after: { ...query.after, id: this.#in(query.after.id) } } : {}),
      });
      return (records ?? []).map((record) => this.#recordOut(record) as StoredRecord);
    };
  }

  /** The inner driver's expiry index, asked for this scope's records; absent when the inner driver has none. */
  get expiring(): ((query: ExpiryQuery) => Promise<StoredRecord[]>) | undefined {
    const inner = this.inner;
    if (!inner.expiring) return undefined;
    return async (query) => {
      const records = await inner.expiring?.({
        ...query,
        scope: this.#prefix + query.scope,
        ...(query.after ? { after: { ...query.after, id: this.#in(query.after.id) } } : {}),
      });
      return (records ?? []).map((record) => this.#recordOut(record) as StoredRecord);
    };
  }

  get countCatalogue(): ((query: CountQuery) => Promise<number | undefined>) | undefined {
    const inner = this.inner;
    if (!inner.countCatalogue) return undefined;
    return async (query) => inner.countCatalogue?.({ ...query, scope: this.#prefix + query.scope });
  }

  async segment(id: string): Promise<SegmentInfo | undefined> {
    const info = await this.inner.segment(this.#in(id));
    return info && this.#segmentOut(info);
  }

  readSegment(id: string, from: number, to: number): Promise<Message[]> {
    return this.inner.readSegment(this.#in(id), from, to);
  }

  locate(id: string, messageId: string, before: number) {
    return this.inner.locate(this.#in(id), messageId, before);
  }

  systemOffsets(id: string, before: number): Promise<number[]> {
    return this.inner.systemOffsets(this.#in(id), before);
  }

  importSegment(
    segment: SegmentInfo,
    messages: Message[],
    from: number,
    options?: SegmentWriteOptions,
  ): Promise<void> {
    return this.inner.importSegment(this.#segmentIn(segment), messages, from, options);
  }

  async importSegments(
    segments: ReadonlyArray<{ info: SegmentInfo; messages: Message[] }>,
    options?: SegmentWriteOptions,
  ): Promise<void> {
    const inside = segments.map(({ info, messages }) => ({ info: this.#segmentIn(info), messages }));
    if (this.inner.importSegments) return this.inner.importSegments(inside, options);
    for (const { info, messages } of inside) await this.inner.importSegment(info, messages, 0, options);
  }

  get dropSegment(): ((segment: string) => Promise<void>) | undefined {
    const inner = this.inner;
    if (!inner.dropSegment) return undefined;
    return (segment) => inner.dropSegment?.(this.#in(segment)) ?? Promise.resolve();
  }

  get watch(): ((segment: string, listener: () => void) => () => void | Promise<void>) | undefined {
    const inner = this.inner;
    if (!inner.watch) return undefined;
    return (segment, listener) => inner.watch?.(this.#in(segment), listener) ?? (() => undefined);
  }

  get notify(): ((segment: string) => Promise<void>) | undefined {
    const inner = this.inner;
    if (!inner.notify) return undefined;
    return async (segment) => inner.notify?.(this.#in(segment));
  }

  newSegmentId(threadId: string): string {
    // The inner driver may place the id by its thread (a Redis hash tag); the scope prefix is added on top.
    const inner = this.inner.newSegmentId?.(this.#in(threadId));
    return inner ?? newRandomId("seg");
  }

  segmentNow(id: string): SegmentInfo | undefined {
    const info = (this.inner as unknown as SyncSegmentReader).segmentNow(this.#in(id));
    return info && this.#segmentOut(info);
  }

  readSegmentNow(id: string, from: number, to: number): Message[] {
    return (this.inner as unknown as SyncSegmentReader).readSegmentNow(this.#in(id), from, to);
  }

  /** The parent store owns the connection; closing a scope releases nothing. */
  async close(): Promise<void> {}

  /** Errors name threads by the ids this scope knows, never by the inner driver's scoped keys. */
  async #outside<Result>(call: Promise<Result>): Promise<Result> {
    try {
      return await call;
    } catch (error) {
      if (SkeinError.isInstance(error)) {
        const scoped = error as SkeinError & { threadId?: unknown };
        const escaped = JSON.stringify(this.#prefix).slice(1, -1);
        const outside = (text: string) => text.split(escaped).join("").split(this.#prefix).join("");
        Object.defineProperty(error, "message", { value: outside(error.message) });
        if (typeof error.stack === "string")
          Object.defineProperty(error, "stack", { value: outside(error.stack) });
        if (typeof scoped.threadId === "string" && scoped.threadId.startsWith(this.#prefix)) {
          Object.defineProperty(error, "threadId", { value: this.#out(scoped.threadId) });
        }
      }
      throw error;
    }
  }

  #in(id: string): string {
    return this.#prefix + id;
  }

  #out(id: string): string {
    return id.slice(this.#prefix.length);
  }

  #segmentIn(info: SegmentInfo): SegmentInfo {
    return {
      ...info,
      id: this.#in(info.id),
      base: info.base && { ...info.base, segment: this.#in(info.base.segment) },
    };
  }

  #segmentOut(info: SegmentInfo): SegmentInfo {
    return {
      ...info,
      id: this.#out(info.id),
      base: info.base && { ...info.base, segment: this.#out(info.base.segment) },
    };
  }

  #logIn(record: LogRecord): LogRecord {
    return {
      ...record,
      id: this.#in(record.id),
      head: this.#in(record.head),
      events: this.#eventsIn.map(record.events, (event) => mapEvent(event, (segment) => this.#in(segment))),
    };
  }

  #recordOut(record: StoredRecord | undefined): StoredRecord | undefined {
    if (!record) return undefined;
    if (record.kind === "state") return { ...record, id: this.#out(record.id) };
    return {
      ...record,
      id: this.#out(record.id),
      head: this.#out(record.head),
      events: this.#eventsOut.map(record.events, (event) => mapEvent(event, (segment) => this.#out(segment))),
    };
  }
}

function mapPoint(point: LogPoint, map: (segment: string) => string): LogPoint {
  return { ...point, segment: map(point.segment) };
}

function mapEvent(event: HistoryEvent, map: (segment: string) => string): HistoryEvent {
  switch (event.kind) {
    case "checkpoint":
      return { ...event, checkpoint: { ...event.checkpoint, point: mapPoint(event.checkpoint.point, map) } };
    case "rollback":
      return { ...event, from: mapPoint(event.from, map), to: mapPoint(event.to, map) };
    case "fork":
      return { ...event, from: mapPoint(event.from, map) };
  }
}
