import { UnsupportedOperationError } from "../errors.js";
import type { JsonObject } from "../json.js";
import type {
  CommitResult,
  LogDriver,
  LogRecord,
  RecordSummary,
  SegmentInfo,
  SegmentWriteOptions,
  StateRecord,
  StoredRecord,
} from "../local/log-driver.js";
import { ScopedLogDriver } from "../local/scoped-log-driver.js";
import type { Message } from "../message.js";
import { EncryptingLogDriver } from "./encrypting-log-driver.js";
import { RecordCodec } from "./record-codec.js";

/**
 * The store as it holds its data, sealed: reads give units as stored (for `export({ encrypted: true })`),
 * writes take sealed units as exported and store them as they are, after checking that each opens here, at
 * the place it is written to, with this store's keys (`KeyNotFoundError`, `IntegrityError` otherwise). Built
 * over a store's driver by `sealedView`, through its scopes; undefined when the store encrypts nothing.
 */
export function sealedView(driver: LogDriver): LogDriver | undefined {
  if (driver instanceof ScopedLogDriver) {
    const inner = sealedView(driver.inner);
    return inner && new ScopedLogDriver(inner, driver.scope);
  }
  if (driver instanceof EncryptingLogDriver)
    return new SealedDriver(
      driver.inner,
      new RecordCodec(driver.ring, driver.inner.storesEnd === true, (id) => driver.inner.segment(id)),
    );
  return undefined;
}

class SealedDriver implements LogDriver {
  readonly specificationVersion = "v1";
  readonly newSegmentId?: (threadId: string) => string;

  constructor(
    readonly inner: LogDriver,
    readonly codec: RecordCodec,
  ) {
    if (inner.newSegmentId) this.newSegmentId = inner.newSegmentId.bind(inner);
  }

  get source(): string {
    return this.inner.source;
  }
  get nativeType(): string {
    return this.inner.nativeType;
  }

  read(id: string): Promise<StoredRecord | undefined> {
    return this.inner.read(id);
  }

  /** The record as exported, with its end made anew (an import gives the thread a new head segment). */
  async createLog(record: LogRecord, head: SegmentInfo): Promise<void> {
    const { end: _exported, ...fields } = record;
    const sealed = { ...fields, ...(await this.codec.placeEnd(record.context, record)) };
    // Opened before it is written: the units must be this store's, sealed for this record id.
    await this.codec.openRecord(sealed, (events) =>
      Promise.all(events.map((event) => this.codec.openEvent(record.id, event))),
    );
    await this.inner.createLog(sealed, head);
  }

  commit(): Promise<CommitResult> {
    throw new UnsupportedOperationError(this.nativeType, "commit on a sealed view", "it only imports");
  }

  async putState(id: string, state: JsonObject, options?: { ifRevision?: number }): Promise<StateRecord> {
    await this.codec.openState({ kind: "state", id, revision: 0, updatedAt: "", state });
    return this.inner.putState(id, state, options);
  }

  delete(id: string, options?: { ifRevision?: number }): Promise<boolean> {
    return this.inner.delete(id, options);
  }

  list(options: { prefix?: string; after?: string; limit: number }): Promise<RecordSummary[]> {
    return this.inner.list(options);
  }

  segment(id: string): Promise<SegmentInfo | undefined> {
    return this.inner.segment(id);
  }

  readSegment(id: string, from: number, to: number): Promise<Message[]> {
    return this.inner.readSegment(id, from, to);
  }

  locate(id: string, messageId: string, before: number): Promise<{ offset: number } | undefined> {
    return this.inner.locate(id, messageId, before);
  }

  systemOffsets(id: string, before: number): Promise<number[]> {
    return this.inner.systemOffsets(id, before);
  }

  async importSegment(
    segment: SegmentInfo,
    messages: Message[],
    from: number,
    options?: SegmentWriteOptions,
  ): Promise<void> {
    await this.#check(segment.id, messages, from);
    await this.inner.importSegment(segment, messages, from, options);
  }

  async importSegments(
    segments: ReadonlyArray<{ info: SegmentInfo; messages: Message[] }>,
    options?: SegmentWriteOptions,
  ): Promise<void> {
    for (const { info, messages } of segments) await this.#check(info.id, messages, 0);
    if (this.inner.importSegments) return this.inner.importSegments(segments, options);
    for (const { info, messages } of segments) await this.inner.importSegment(info, messages, 0, options);
  }

  async #check(segment: string, messages: Message[], from: number): Promise<void> {
    for (const [index, message] of messages.entries()) {
      await this.codec.openMessage(message, segment, from + index);
    }
  }

  close(): Promise<void> {
    // The store that made the view owns the connection.
    return Promise.resolve();
  }
}
