import { catalogueOf } from "../catalogue/catalogue-fields.js";
import { ConcurrencyError, HeadMovedError, ThreadNotFoundError } from "../errors.js";
import { cloneJson, type JsonObject } from "../json.js";
import type {
  CatalogueQuery,
  CommitResult,
  CountQuery,
  LogChange,
  LogDriver,
  LogRecord,
  RecordSummary,
  SegmentInfo,
  SegmentWriteOptions,
  StateRecord,
  StoredRecord,
} from "../local/log-driver.js";
import type { SyncSegmentReader } from "../local/scoped-log-driver.js";
import { SegmentInfoCache } from "../local/segment-info-cache.js";
import type { Message } from "../message.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import type { RekeyOptions, RekeyReport } from "../spec/rekey.js";
import type { HistoryEvent } from "../thread.js";
import { AppendQueue } from "./append-queue.js";
import { emptyContinuationBases } from "./empty-continuations.js";
import { filteredCatalogue } from "./encrypted-catalogue.js";
import { KeyRing, type RingKey } from "./key-ring.js";
import { openForListing } from "./listed-record.js";
import { OpenedRecords } from "./opened-records.js";
import { RecordCodec } from "./record-codec.js";
import { END_FIELD } from "./record-end.js";
import { rekeyStore } from "./rekey-store.js";
import { importWithStoredUnits, type SegmentImport } from "./stored-units.js";

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

/** The keys of the encrypting driver under `driver` (through scopes), or undefined when it encrypts nothing. */
export function keyRingOf(driver: LogDriver): KeyRing | undefined {
  for (
    let at: unknown = driver;
    typeof at === "object" && at !== null;
    at = (at as { inner?: unknown }).inner
  ) {
    if (at instanceof EncryptingLogDriver) return at.ring;
  }
  return undefined;
}

export class EncryptingLogDriver implements LogDriver {
  readonly specificationVersion = "v1";
  readonly [ENCRYPTING] = true;
  readonly fencedDelete?: boolean;
  readonly catalogue?: (query: CatalogueQuery) => Promise<StoredRecord[]>;
  readonly countCatalogue?: (query: CountQuery) => Promise<number | undefined>;
  readonly forgetOwner: (owner: string) => Promise<void>;
  readonly erasureFollowUp?: string;
  readonly importSegments?: (
    segments: ReadonlyArray<{ info: SegmentInfo; messages: Message[] }>,
    options?: SegmentWriteOptions,
  ) => Promise<void>;
  readonly newSegmentId?: (threadId: string) => string;
  readonly watch?: (segment: string, listener: () => void) => () => void | Promise<void>;
  readonly notify?: (segment: string) => Promise<void>;
  readonly dropSegment?: (segment: string) => Promise<void>;
  readonly reclaimsInCommit?: boolean;
  readonly #codec: RecordCodec;
  readonly #appends = new AppendQueue();
  readonly #segments: SegmentInfoCache;
  readonly #records: OpenedRecords;

  constructor(
    readonly inner: LogDriver,
    readonly ring: KeyRing,
  ) {
    this.#segments = new SegmentInfoCache((id) => inner.segment(id));
    this.#codec = new RecordCodec(ring, inner.storesEnd === true, (id) => this.#segments.get(id));
    this.#records = new OpenedRecords(ring);
    // A shredded owner's plaintext goes with their keys (the ring forgets its own caches).
    ring.onForgetOwner(() => this.#forgetOpened());
    if (inner.fencedDelete) this.fencedDelete = true;
    // Owners are kept in clear (the catalogue indexes them), so the inner driver scrubs them as it is; the
    // erased threads' plaintext goes from every cache (units sealed under shared keys name no owner).
    const forgetOwner = inner.forgetOwner?.bind(inner);
    this.forgetOwner = async (owner) => {
      try {
        await forgetOwner?.(owner);
      } finally {
        ring.forgetOpened();
        this.#forgetOpened();
      }
    };
    if (inner.erasureFollowUp) this.erasureFollowUp = inner.erasureFollowUp;
    if (inner.catalogue) {
      const catalogue = inner.catalogue.bind(inner);
      // A shredded owner's threads still list, with what is clear (`openForListing`).
      this.catalogue = (query) =>
        filteredCatalogue(query, catalogue, (record) =>
          openForListing(record, ring, (stored) => this.#open(stored)),
        );
    }
    if (inner.countCatalogue) {
      const count = inner.countCatalogue.bind(inner);
      // Metadata is sealed, so no index of the store can count by it.
      this.countCatalogue = async (query) => (query.where === undefined ? count(query) : undefined);
    }
    if (inner.importSegments) {
      const importSegments = inner.importSegments.bind(inner);
      this.importSegments = (segments, options) =>
        this.#withStoredUnits(
          segments.map(({ info, messages }) => ({ segment: info, messages, from: 0, owner: options?.owner })),
          (sealed) => importSegments(sealed.map(({ segment, messages }) => ({ info: segment, messages }))),
        );
    }
    if (inner.newSegmentId) this.newSegmentId = inner.newSegmentId.bind(inner);
    // Wake-ups carry no data: a streamed reply's followers are woken as on a plain store.
    if (inner.watch) this.watch = inner.watch.bind(inner);
    if (inner.notify) this.notify = inner.notify.bind(inner);
    // A segment holds sealed units like any other: removing it needs no key.
    if (inner.dropSegment) this.dropSegment = inner.dropSegment.bind(inner);
    // A landed reply's `reclaim` names a segment, passed down as it is: the inner driver drops it in the commit.
    if (inner.reclaimsInCommit) this.reclaimsInCommit = true;
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
    const stored = await this.inner.read(id, known && this.#records.storedForm(known));
    return stored && this.#open(stored);
  }

  async createLog(record: LogRecord, head: SegmentInfo): Promise<void> {
    const key = await this.#codec.currentKey(catalogueOf(record.context).owner);
    const sealed = this.#codec.sealLogWith(key, record);
    await this.inner.createLog(sealed, head);
    this.#records.remember(record, sealed, [key]);
  }

  commit(id: string, change: LogChange): Promise<CommitResult> {
    if (!change.append?.length || change.newHead) return this.#commit(id, change);
    return this.#appends.run(id, () => this.#commit(id, change));
  }

  async #commit(id: string, requested: LogChange): Promise<CommitResult> {
    let change = requested;
    // An append is bound to the offset it lands at, and a change that moves the log's end (an append, a
    // rollback) or replaces the context rewrites the record's authenticated end (`record-end.ts`): each is
    // landed exactly on the record it was planned on, at its revision. Another writer landing first is not
    // the caller's conflict (it asked for no revision): the change is planned again on the newer record.
    const appends = Boolean(change.append?.length) && !change.newHead;
    const fenced = appends || change.newHead !== undefined || change.context !== undefined;
    let planned = appends ? this.#appends.base(id, change.expectHead, change.known) : change.known;
    for (let attempt = 1; ; attempt++) {
      const planning = fenced ? this.#baseFor(id, change, planned) : planned;
      const base = planning instanceof Promise ? await planning : planning;
      const ifRevision = change.ifRevision ?? (fenced ? base?.revision : undefined);
      const offset =
        appends && base
          ? base.length - (this.#startNow(change.expectHead) ?? (await this.#start(change.expectHead)))
          : 0;
      // Everything a change writes is sealed under one key (its owner's current one): usually at hand, so
      // sealing awaits nothing.
      const held = this.#sealingKey(id, change, base, fenced);
      const key = held instanceof Promise ? await held : held;
      const sealed = this.#sealChange(key, id, change, offset, ifRevision, base, fenced);
      try {
        const stored = await this.inner.commit(id, sealed);
        const head = change.newHead?.id ?? change.expectHead;
        const onBase =
          base && ifRevision === base.revision && !stored.held && this.#records.storedForm(base)
            ? this.#resultOnBase(id, stored, base, change, sealed.append, offset, key)
            : this.#openResult(head, stored, offset);
        const result = onBase instanceof Promise ? await onBase : onBase;
        this.#saw(result.record);
        return result;
      } catch (error) {
        const continued = await this.#continuedHead(id, change, base, error);
        if (continued && attempt < COMMIT_ATTEMPTS) {
          change = { ...change, expectHead: continued.head };
          planned = continued;
          continue;
        }
        const ours = change.ifRevision === undefined && ifRevision !== undefined;
        if (!ours || !ConcurrencyError.isInstance(error) || attempt >= COMMIT_ATTEMPTS) throw error;
        planned = undefined;
      }
    }
  }

  /**
   * The thread's record when `error` says the store moved it off the head `change` was sealed for onto an
   * empty head continuing that one, changing nothing else (adapter-fs's lock takeover, made without keys):
   * the change is sealed again for the new head. Undefined for any other refusal.
   */
  async #continuedHead(
    id: string,
    change: LogChange,
    base: LogRecord | undefined,
    error: unknown,
  ): Promise<LogRecord | undefined> {
    if (!HeadMovedError.isInstance(error) || change.newHead || !base) return undefined;
    const current = await this.#readLog(id);
    if (current.head === change.expectHead || current.revision !== base.revision) return undefined;
    const bases = await emptyContinuationBases(current.head, current.length, (segment) =>
      this.#segments.get(segment),
    );
    return bases.includes(change.expectHead) ? current : undefined;
  }

  /** The record a fenced change is planned on: at the caller's revision if it gave one, with its stored form at hand. */
  #baseFor(id: string, change: LogChange, planned: LogRecord | undefined): LogRecord | Promise<LogRecord> {
    // A planned record serves while the keys that opened it are held: after a shred its plaintext is never
    // sealed again, under whatever key the owner has now.
    const usable =
      planned &&
      this.#records.heldStoredForm(planned) &&
      (change.ifRevision === undefined || planned.revision === change.ifRevision);
    return usable ? planned : this.#readLog(id);
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

  importSegment(
    segment: SegmentInfo,
    messages: Message[],
    from: number,
    options?: SegmentWriteOptions,
  ): Promise<void> {
    const owner = options?.owner;
    return this.#withStoredUnits([{ segment, messages, from, owner }], ([sealed]) => {
      const { messages: units } = sealed as SegmentImport;
      return this.inner.importSegment(segment, units, from, options);
    });
  }

  #withStoredUnits(
    imports: SegmentImport[],
    write: (sealed: SegmentImport[]) => Promise<void>,
  ): Promise<void> {
    return importWithStoredUnits(imports, write, {
      seal: (entry) => this.#sealMessages(entry.segment.id, entry.messages, entry.from, entry.owner),
      stored: (segment, from, to) => this.inner.readSegment(segment, from, to),
      open: (message, segment, offset) => this.#codec.openMessage(message, segment, offset),
    });
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

  async #sealMessages(
    segment: string,
    messages: Message[],
    from: number,
    owner: string | undefined,
  ): Promise<Message[]> {
    // The key is looked up once for all of them (awaited only when the provider is asked for it).
    const held = this.#codec.currentKey(owner);
    const key = held instanceof Promise ? await held : held;
    return messages.map((message, index) => this.#codec.sealMessageWith(key, message, segment, from + index));
  }

  /**
   * The key that seals what `change` writes: the current key of the owner it gives the thread, else the
   * thread's. None for a change that writes nothing sealed (a checkpoint without a label): it needs no key.
   */
  #sealingKey(
    id: string,
    change: LogChange,
    base: LogRecord | undefined,
    fenced: boolean,
  ): RingKey | Promise<RingKey> | undefined {
    const { event } = change;
    const label = event?.kind === "checkpoint" && event.checkpoint.label !== undefined;
    // A fenced change writes the log's new end, sealed; the others only what they give.
    if (!fenced && !change.metadata && !label) return undefined;
    if (!this.ring.perOwner) return this.#codec.currentKey(undefined);
    const context = change.context ?? base?.context;
    if (context) return this.#codec.currentKey(catalogueOf(context).owner);
    return this.#storedOwner(id).then((owner) => this.#codec.currentKey(owner));
  }

  /** The owner of the thread as stored (clear: no key is needed to learn it). */
  async #storedOwner(id: string): Promise<string | undefined> {
    const stored = await this.inner.read(id);
    return stored?.kind === "log" ? catalogueOf(stored.context).owner : undefined;
  }

  /** `change` as the store keeps it, everything it writes sealed under `key` (given whenever it seals). */
  #sealChange(
    given: RingKey | undefined,
    id: string,
    change: LogChange,
    offset: number,
    ifRevision: number | undefined,
    base: LogRecord | undefined,
    fenced: boolean,
  ): LogChange {
    const key = given as RingKey;
    const { known: _plain, ...rest } = change;
    const sealed: LogChange = rest;
    if (ifRevision !== undefined) sealed.ifRevision = ifRevision;
    if (change.append) {
      const head = change.newHead?.id ?? change.expectHead;
      sealed.append = change.append.map((message, index) =>
        this.#codec.sealMessageWith(key, message, head, offset + index),
      );
    }
    if (change.event) sealed.event = this.#codec.sealEventWith(key, id, change.event);
    if (change.metadata) sealed.metadata = this.#codec.sealMetadataWith(key, id, change.metadata);
    if (fenced && base) Object.assign(sealed, this.#endChange(key, id, change, base));
    const known = base && this.#records.storedForm(base);
    if (known) sealed.known = known;
    return sealed;
  }

  /**
   * The new end of a fenced change, where the store keeps it: beside the context (`storesEnd`), so the
   * context goes down only when the change gives one, when the stored one still holds an end an older
   * version wrote into it (moved out now), or is in clear (`allowPlaintext`: sealed now); else in the
   * context, the stored one written back with it.
   */
  #endChange(
    key: RingKey,
    id: string,
    change: LogChange,
    base: LogRecord,
  ): { context?: Record<string, unknown>; end?: string } {
    const appended = change.append?.length ?? 0;
    const end = {
      id,
      createdAt: base.createdAt,
      head: change.newHead?.id ?? base.head,
      length: change.newHead ? change.newHead.start + appended : base.length + appended,
    };
    const codec = this.#codec;
    if (change.context) return codec.placeEndWith(key, codec.sealContextWith(key, id, change.context), end);
    const stored = (this.#records.storedForm(base) as LogRecord).context;
    if (codec.endBeside && stored[END_FIELD] === undefined && codec.isSealedContext(stored)) {
      return { end: codec.sealedEndWith(key, end) };
    }
    // Written back as read, a stored context sealed under an older key would undo a rekey that moved it
    // meanwhile (which changes no revision to fence on): sealed again unless current.
    const context = codec.isCurrentContext(stored) ? stored : codec.sealContextWith(key, id, base.context);
    return codec.placeEndWith(key, context, end);
  }

  /**
   * What a change landed at the revision of `base` (an opened record of this driver's) left, without
   * decrypting what this driver has just sealed: the record is `base` with the change, so its metadata and
   * context are the change's or the base's, and the messages the store hands back as written are the
   * caller's. Only checkpoint labels the record gained are opened. The next read of the record from the
   * store is opened and checked in full as ever.
   */
  #resultOnBase(
    id: string,
    result: CommitResult,
    base: LogRecord,
    change: LogChange,
    sealedAppend: Message[] | undefined,
    offset: number,
    key: RingKey | undefined,
  ): CommitResult | Promise<CommitResult> {
    const stored = result.record;
    // An append leaves the events as they were (the same stored list): their opened form is the base's.
    const events =
      stored.events === this.#records.storedForm(base)?.events
        ? base.events
        : this.#openEvents(id, stored.events);
    const plain = change.append ?? [];
    const head = change.newHead?.id ?? change.expectHead;
    let opening = false;
    const messages = result.messages.map((message, index) => {
      if (message === sealedAppend?.[index]) return plain[index] as Message;
      opening = true;
      return this.#codec.openMessage(message, head, offset + index);
    });
    const landed = (events: HistoryEvent[], messages: Message[]): CommitResult => {
      const { end: _end, ...fields } = stored;
      const record: LogRecord = {
        ...fields,
        metadata: change.metadata ? cloneJson(change.metadata) : base.metadata,
        context: change.context ? cloneJson(change.context) : base.context,
        events,
      };
      // What it holds was opened with the base's keys or sealed now with `key`.
      const keys = this.#records.keysOf(base);
      const added = key === undefined || keys?.includes(key) ? keys : keys && [...keys, key];
      this.#records.remember(record, stored, added);
      return { record, messages };
    };
    // A plain append (the common change) awaits nothing here.
    if (!opening && !(events instanceof Promise)) return landed(events, messages as Message[]);
    return Promise.all([events, Promise.all(messages)]).then(([opened, messages]) =>
      landed(opened, messages),
    );
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
    this.#saw(record);
    return record;
  }

  /** Forgets the plaintext records this driver kept (the ring forgets the messages and units). */
  #forgetOpened(): void {
    this.#appends.forget();
    this.#records.forgetOpened();
  }

  /**
   * The queue keeps a record only while its plaintext may serve as a base (`#baseFor`): one opened with a key
   * forgotten meanwhile (a shred during the call) is not kept.
   */
  #saw(record: LogRecord): void {
    if (this.#records.heldStoredForm(record)) this.#appends.saw(record);
  }

  /** `#start` when the segment's info is held: an append to a known head awaits nothing for it. */
  #startNow(segment: string): number | undefined {
    return this.#segments.cached(segment)?.start;
  }

  async #start(segment: string): Promise<number> {
    const info = await this.#segments.get(segment);
    return info?.start ?? 0;
  }

  async #open(stored: StoredRecord): Promise<StoredRecord> {
    const known = this.#records.opened(stored);
    if (known) return known;
    const opened = await this.#codec.openRecord(stored, (events) => this.#openEvents(stored.id, events));
    this.#records.remember(opened, stored, this.#codec.heldKeysOf(stored));
    return opened;
  }

  async #openEvents(recordId: string, events: HistoryEvent[]): Promise<HistoryEvent[]> {
    return Promise.all(
      events.map(async (event) => {
        const known = this.#records.openedEvent(event, recordId);
        if (known) return known;
        const opened = await this.#codec.openEvent(recordId, event);
        this.#records.rememberEvent(opened, event, recordId, this.#codec.heldKeysOfEvent(event));
        return opened;
      }),
    );
  }
}
