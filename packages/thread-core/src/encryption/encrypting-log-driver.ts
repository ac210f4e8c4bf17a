import { ConcurrencyError, ConflictError, ThreadNotFoundError } from "../errors.js";
import type { JsonObject } from "../json.js";
import type {
  CatalogueQuery,
  CommitResult,
  CountQuery,
  LogChange,
  LogDriver,
  LogRecord,
  RecordSummary,
  SegmentInfo,
  StateRecord,
  StoredRecord,
} from "../local/log-driver.js";
import type { SyncSegmentReader } from "../local/scoped-log-driver.js";
import { SegmentInfoCache } from "../local/segment-info-cache.js";
import { type Message, messageConflict } from "../message.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import type { RekeyOptions, RekeyReport } from "../spec/rekey.js";
import type { HistoryEvent } from "../thread.js";
import { AppendQueue } from "./append-queue.js";
import { filteredCatalogue } from "./encrypted-catalogue.js";
import { KeyRing } from "./key-ring.js";
import { RecordCodec } from "./record-codec.js";
import { rekeyStore } from "./rekey-store.js";

/** Messages to write at own offsets `from…` of a segment. */
interface SegmentImport {
  segment: SegmentInfo;
  messages: Message[];
  from: number;
}

const ENCRYPTING = Symbol.for("skein.encrypting-log-driver");
/** How often a commit planned on a stale record is planned again before it gives up (each retry means another writer landed). */
const COMMIT_ATTEMPTS = 1_000;

/**
 * A `LogDriver` that encrypts everything another driver stores (AES-256-GCM, `node:crypto`): messages, record
 * metadata and context, checkpoint labels, saved states. What stays clear, and why, is in `RecordCodec`.
 * @example new LocalStore({ driver: encryptingLogDriver(new MemoryLogDriver(), { keys: { k1: key }, current: "k1" }), … })
 */
export function encryptingLogDriver(inner: LogDriver, options: EncryptionOptions): LogDriver {
  return new EncryptingLogDriver(inner, new KeyRing(options));
}

/** Whether `driver` encrypts what it stores (`openStore` checks that a store it asked to encrypt does). */
export function isEncryptingDriver(driver: unknown): boolean {
  return (
    typeof driver === "object" && driver !== null && (driver as Record<symbol, unknown>)[ENCRYPTING] === true
  );
}

/** The driver an encrypting driver wraps, or `driver` itself when it encrypts nothing. */
export function innerDriver(driver: LogDriver): LogDriver {
  return driver instanceof EncryptingLogDriver ? driver.inner : driver;
}

class EncryptingLogDriver implements LogDriver {
  readonly specificationVersion = "v1";
  readonly [ENCRYPTING] = true;
  readonly fencedDelete?: boolean;
  readonly catalogue?: (query: CatalogueQuery) => Promise<StoredRecord[]>;
  readonly countCatalogue?: (query: CountQuery) => Promise<number | undefined>;
  readonly importSegments?: (
    segments: ReadonlyArray<{ info: SegmentInfo; messages: Message[] }>,
  ) => Promise<void>;
  readonly newSegmentId?: (threadId: string) => string;
  readonly watch?: (segment: string, listener: () => void) => () => void | Promise<void>;
  readonly notify?: (segment: string) => Promise<void>;
  readonly #codec: RecordCodec;
  readonly #appends = new AppendQueue();
  readonly #segments: SegmentInfoCache;
  /** Records opened, by the stored object the inner driver gave: a driver that answers with `known` costs no decryption. */
  readonly #opened = new WeakMap<StoredRecord, StoredRecord>();
  /** The stored form of every record handed up, so a caller's `known` goes down as the inner driver gave it. */
  readonly #stored = new WeakMap<StoredRecord, LogRecord>();
  /** Events opened, by the stored event and the record it was opened for (its label is bound to that record). */
  readonly #openedEvents = new WeakMap<HistoryEvent, { recordId: string; event: HistoryEvent }>();

  constructor(
    readonly inner: LogDriver,
    ring: KeyRing,
  ) {
    this.#codec = new RecordCodec(ring);
    this.#segments = new SegmentInfoCache((id) => inner.segment(id));
    if (inner.fencedDelete) this.fencedDelete = true;
    if (inner.catalogue) {
      const catalogue = inner.catalogue.bind(inner);
      this.catalogue = (query) => filteredCatalogue(query, catalogue, (record) => this.#open(record));
    }
    if (inner.countCatalogue) {
      const count = inner.countCatalogue.bind(inner);
      // Metadata is sealed, so no index of the store can count by it.
      this.countCatalogue = async (query) => (query.where === undefined ? count(query) : undefined);
    }
    if (inner.importSegments) {
      const importSegments = inner.importSegments.bind(inner);
      this.importSegments = (segments) =>
        this.#withStoredUnits(
          segments.map(({ info, messages }) => ({ segment: info, messages, from: 0 })),
          (sealed) => importSegments(sealed.map(({ segment, messages }) => ({ info: segment, messages }))),
        );
    }
    if (inner.newSegmentId) this.newSegmentId = inner.newSegmentId.bind(inner);
    // Wake-ups carry no data: a streamed reply's followers are woken as on a plain store.
    if (inner.watch) this.watch = inner.watch.bind(inner);
    if (inner.notify) this.notify = inner.notify.bind(inner);
    const sync = inner as Partial<SyncSegmentReader>;
    if (sync.segmentNow && sync.readSegmentNow) {
      const segmentNow = sync.segmentNow.bind(inner);
      const readSegmentNow = sync.readSegmentNow.bind(inner);
      Object.assign(this, {
        segmentNow,
        readSegmentNow: (id: string, from: number, to: number) =>
          readSegmentNow(id, from, to).map((message, index) =>
            this.#codec.openMessageNow(message, id, from + index),
          ),
      });
    }
  }

  get source(): string {
    return this.inner.source;
  }
  get nativeType(): string {
    return this.inner.nativeType;
  }

  async read(id: string, known?: LogRecord): Promise<StoredRecord | undefined> {
    const stored = await this.inner.read(id, known && this.#stored.get(known));
    return stored && this.#open(stored);
  }

  async createLog(record: LogRecord, head: SegmentInfo): Promise<void> {
    const sealed = await this.#codec.sealLog(record);
    await this.inner.createLog(sealed, head);
    this.#remember(record, sealed);
  }

  commit(id: string, change: LogChange): Promise<CommitResult> {
    if (!change.append?.length || change.newHead) return this.#commit(id, change);
    return this.#appends.run(id, () => this.#commit(id, change));
  }

  async #commit(id: string, change: LogChange): Promise<CommitResult> {
    // An append is bound to the offset it lands at, so the driver is asked to land it exactly there: at the
    // revision it was planned on. Another writer landing first is not the caller's conflict (it asked for no
    // revision): the change is planned again on the newer record, as the driver would have appended it anyway.
    const appends = Boolean(change.append?.length) && !change.newHead;
    let planned = appends ? this.#appends.base(id, change.expectHead, change.known) : change.known;
    for (let attempt = 1; ; attempt++) {
      const base = appends ? (planned ?? (await this.#readLog(id))) : planned;
      const ifRevision = change.ifRevision ?? (appends ? base?.revision : undefined);
      const offset = appends && base ? base.length - (await this.#start(change.expectHead)) : 0;
      const sealed = await this.#sealChange(id, change, offset, ifRevision, base);
      try {
        const result = await this.#openResult(
          change.newHead?.id ?? change.expectHead,
          await this.inner.commit(id, sealed),
          offset,
        );
        this.#appends.saw(result.record);
        return result;
      } catch (error) {
        const ours = change.ifRevision === undefined && ifRevision !== undefined;
        if (!ours || !ConcurrencyError.isInstance(error) || attempt >= COMMIT_ATTEMPTS) throw error;
        planned = undefined;
      }
    }
  }

  async putState(id: string, state: JsonObject, options?: { ifRevision?: number }): Promise<StateRecord> {
    const stored = await this.inner.putState(id, await this.#codec.sealState(id, state), options);
    return (await this.#open(stored)) as StateRecord;
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

  async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    const stored = await this.inner.readSegment(id, from, to);
    return Promise.all(stored.map((message, index) => this.#codec.openMessage(message, id, from + index)));
  }

  locate(id: string, messageId: string, before: number): Promise<{ offset: number } | undefined> {
    return this.inner.locate(id, messageId, before);
  }

  systemOffsets(id: string, before: number): Promise<number[]> {
    return this.inner.systemOffsets(id, before);
  }

  importSegment(segment: SegmentInfo, messages: Message[], from: number): Promise<void> {
    return this.#withStoredUnits([{ segment, messages, from }], ([sealed]) => {
      const { messages: units } = sealed as SegmentImport;
      return this.inner.importSegment(segment, units, from);
    });
  }

  /**
   * Imports sealed under the current key. A store compares a re-imported message with the one it holds byte
   * for byte; one sealed under an older key differs though its plaintext is equal, so on a `ConflictError`
   * each message the store already holds is opened and, when equal, handed down exactly as it is stored.
   */
  async #withStoredUnits(
    imports: SegmentImport[],
    write: (sealed: SegmentImport[]) => Promise<void>,
  ): Promise<void> {
    const sealed = await Promise.all(
      imports.map(async (entry) => ({
        ...entry,
        messages: await this.#sealMessages(entry.segment.id, entry.messages, entry.from),
      })),
    );
    try {
      await write(sealed);
    } catch (error) {
      if (!ConflictError.isInstance(error)) throw error;
      const reconciled = await Promise.all(
        imports.map((entry, index) => this.#storedWhereEqual(entry, sealed[index] as SegmentImport)),
      );
      if (reconciled.every((entry, index) => entry === sealed[index])) throw error;
      await write(reconciled);
    }
  }

  async #storedWhereEqual(entry: SegmentImport, sealed: SegmentImport): Promise<SegmentImport> {
    const { segment, messages, from } = entry;
    const stored = await this.inner.readSegment(segment.id, from, from + messages.length).catch(() => []);
    if (stored.length === 0) return sealed;
    const units = await Promise.all(
      sealed.messages.map(async (unit, index) => {
        const held = stored[index];
        if (!held || held.id !== unit.id) return unit;
        const opened = await this.#codec.openMessage(held, segment.id, from + index);
        return messageConflict(opened, messages[index] as Message) ? unit : held;
      }),
    );
    return { ...sealed, messages: units };
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** `store.rekey`: the stored units under `prefix` (a scope's, or "" for all) moved to the current key. */
  rekey(options: RekeyOptions | undefined, prefix: string): Promise<RekeyReport> {
    return rekeyStore({ inner: this.inner, codec: this.#codec, prefix }, options);
  }

  toJSON(): { source: string; encrypted: true } {
    return { source: this.source, encrypted: true };
  }

  #sealMessages(segment: string, messages: Message[], from: number): Promise<Message[]> {
    return Promise.all(
      messages.map((message, index) => this.#codec.sealMessage(message, segment, from + index)),
    );
  }

  async #sealChange(
    id: string,
    change: LogChange,
    offset: number,
    ifRevision: number | undefined,
    base: LogRecord | undefined,
  ): Promise<LogChange> {
    const head = change.newHead?.id ?? change.expectHead;
    const known = base && this.#stored.get(base);
    const { known: _plain, ...rest } = change;
    return {
      ...rest,
      ...(ifRevision === undefined ? {} : { ifRevision }),
      ...(change.append ? { append: await this.#sealMessages(head, change.append, offset) } : {}),
      ...(change.event ? { event: await this.#codec.sealEvent(id, change.event) } : {}),
      ...(change.metadata ? { metadata: await this.#codec.sealMetadata(id, change.metadata) } : {}),
      ...(change.context ? { context: await this.#codec.sealContext(id, change.context) } : {}),
      ...(known ? { known } : {}),
    };
  }

  async #openResult(head: string, result: CommitResult, offset: number): Promise<CommitResult> {
    const record = (await this.#open(result.record)) as LogRecord;
    if (result.held) {
      // Held messages sit anywhere in the head: each is found by its id, which is stored clear.
      const own = result.record.length - (await this.#start(result.record.head));
      const held = await Promise.all(
        result.held.map(async (message) => {
          const found = await this.inner.locate(head, message.id, own);
          if (!found) return this.#codec.openMessage(message, head, -1);
          return this.#codec.openMessage(message, head, found.offset);
        }),
      );
      return { record, messages: [], held };
    }
    const messages = await Promise.all(
      result.messages.map((message, index) => this.#codec.openMessage(message, head, offset + index)),
    );
    return { record, messages };
  }

  async #readLog(id: string): Promise<LogRecord> {
    const record = await this.read(id);
    if (record?.kind !== "log") throw new ThreadNotFoundError(id, { source: this.source });
    this.#appends.saw(record);
    return record;
  }

  async #start(segment: string): Promise<number> {
    const info = await this.#segments.get(segment);
    return info?.start ?? 0;
  }

  async #open(stored: StoredRecord): Promise<StoredRecord> {
    const known = this.#opened.get(stored);
    if (known) return known;
    const opened = await this.#codec.openRecord(stored, (events) => this.#openEvents(stored.id, events));
    if (opened.kind === "log") this.#remember(opened, stored as LogRecord);
    this.#opened.set(stored, opened);
    return opened;
  }

  async #openEvents(recordId: string, events: HistoryEvent[]): Promise<HistoryEvent[]> {
    return Promise.all(
      events.map(async (event) => {
        const known = this.#openedEvents.get(event);
        if (known?.recordId === recordId) return known.event;
        const opened = await this.#codec.openEvent(recordId, event);
        this.#openedEvents.set(event, { recordId, event: opened });
        return opened;
      }),
    );
  }

  #remember(plain: LogRecord, stored: LogRecord): void {
    this.#stored.set(plain, stored);
  }
}
