import { catalogueEntry, orderKey } from "../catalogue/catalogue-entry.js";
import { assertNoCatalogueKey, changedCatalogue, withCatalogue } from "../catalogue/catalogue-fields.js";
import { scanCatalogue } from "../catalogue/catalogue-scan.js";
import { encodeCursor } from "../catalogue/list-cursor.js";
import { type CatalogueQuery, countQuery, listQuery } from "../catalogue/list-query.js";
import { KeyNotFoundError } from "../encryption/encryption-errors.js";
import { rekeyDriver } from "../encryption/rekey-driver.js";
import { exportSealed, importSealed, isSealedExport } from "../encryption/sealed-export.js";
import { shredOwner } from "../encryption/shred-owner.js";
import {
  ConcurrencyError,
  ConflictError,
  InvalidThreadStateError,
  quoteUntrusted,
  ThreadExistsError,
  ThreadNotFoundError,
  UnknownThreadTypeError,
  UnsupportedOperationError,
} from "../errors.js";
import { assertThreadId, newSortableId } from "../ids.js";
import { withIfRevision } from "../if-revision.js";
import { cloneJson, type JsonObject, jsonData, jsonObjectField } from "../json.js";
import { eraseOwner } from "../lifecycle/erase.js";
import { isExpired, type RetentionPolicy, retentionPolicy } from "../lifecycle/retention-policy.js";
import { visibleCount, visiblePage } from "../lifecycle/retention-reads.js";
import { sweepExpired } from "../lifecycle/sweep.js";
import { OpaqueThreadState } from "../opaque-state.js";
import { optionsObject } from "../option-value.js";
import { type ParsedState, type ParseOptions, SKEIN_TYPE_PACKAGES } from "../registry.js";
import type { EraseOptions, ErasureReport } from "../spec/erasure.js";
import type { RekeyOptions, RekeyReport } from "../spec/rekey.js";
import type { SweepOptions, SweepProgress } from "../spec/retention.js";
import type { RetentionOptions, ScopeOptions, ThreadTypeRegistry } from "../spec/thread-store.js";
import { assertSpecificationVersion } from "../specification-version.js";
import { PlainStateThread } from "../store/plain-state-thread.js";
import type {
  CountOptions,
  CreateThreadOptions,
  ListOptions,
  SkeinAdapter,
  ThreadPage,
  ThreadStore,
} from "../store/store.js";
import type { Thread } from "../thread.js";
import type { ThreadState, ThreadType } from "../thread-type.js";
import { STORE_SPANS, THREAD_SPANS } from "../tracing/store-spans.js";
import { traceMethods } from "../tracing/trace-methods.js";
import { assertNoFieldsKey, FIELDS_KEY, ownFields, parseContext, withLocalFields } from "./local-fields.js";
import {
  deleteRecord,
  type LogDriver,
  type LogRecord,
  newHeadSegment,
  type StoredRecord,
} from "./log-driver.js";
import { exportLog, importLog, type LogState, LogStateSchema } from "./log-state.js";
import { LogThread, type LogThreadHost } from "./log-thread.js";
import { ScopedLogDriver } from "./scoped-log-driver.js";
import { SegmentChains } from "./segment-chain.js";
import { TypedLocalThread } from "./typed-local-thread.js";

/** Options of a `LocalStore`: its driver, registry, URL and adapters. */
export interface LocalStoreOptions {
  driver: LogDriver;
  registry: ThreadTypeRegistry;
  /** The URL the store was opened with, passwords removed. */
  url: string;
  adapters?: readonly SkeinAdapter[];
  /** A local thread's JSON. @default a reference: `{ $type, id, createdAt, metadata, context, revision }` */
  serialize?: (record: LogRecord, chains: SegmentChains) => ThreadState;
  /** How long threads are kept (`openStore(url, { retention })`). @default until deleted */
  retention?: RetentionOptions;
}

/**
 * A `ThreadStore` over a `LogDriver`: the memory, fs and redis stores are this class with their driver.
 * Local threads live in the driver's logs; threads of other types are kept as state documents.
 */
export class LocalStore implements ThreadStore, LogThreadHost {
  readonly specificationVersion = "v1";
  readonly driver: LogDriver;
  readonly chains: SegmentChains;
  readonly registry: ThreadTypeRegistry;
  readonly url: string;
  readonly adapters: readonly SkeinAdapter[];
  readonly #serialize: (record: LogRecord, chains: SegmentChains) => ThreadState;
  // Plain (not `#`) members: the read paths use them, and a store wrapped in a Proxy or `Object.create` (a
  // test double, an instrumenting wrapper) calls its methods with the wrapper as `this`.
  private retention: RetentionPolicy | undefined;

  constructor(options: LocalStoreOptions) {
    assertSpecificationVersion(`log driver of ${options.driver.source}`, options.driver.specificationVersion);
    this.driver = options.driver;
    this.chains = new SegmentChains(options.driver);
    this.registry = options.registry;
    this.url = options.url;
    this.adapters = options.adapters ?? [];
    this.#serialize = options.serialize ?? referenceState;
    this.retention = retentionPolicy(options.retention);
  }

  /**
   * Sets the store's retention policy (`openStore(url, { retention })` calls it on the store an adapter
   * opened); `InvalidOptionError` for a malformed one, leaving the policy as it was.
   */
  useRetention(options: RetentionOptions | undefined): void {
    this.retention = retentionPolicy(options);
  }

  /** Whether a record read here has expired: then it is gone for readers, whether or not a sweep ran. */
  private expired(record: StoredRecord | undefined): boolean {
    return record !== undefined && isExpired(record, this.retention);
  }

  /**
   * Deletes the threads of this store or scope that expired (see `ThreadStore.sweep`); what it costs is
   * the driver's: O(expired) with an expiry index (`LogDriver.expiring`), else a read of every record.
   */
  sweep(options?: SweepOptions): Promise<SweepProgress> {
    return sweepExpired(this.driver, this.retention, options);
  }

  get nativeType(): string {
    return this.driver.nativeType;
  }

  create(options?: CreateThreadOptions): Promise<Thread>;
  create(type: string, options?: Record<string, unknown>): Promise<Thread>;
  async create(
    typeOrOptions?: string | CreateThreadOptions,
    options?: Record<string, unknown>,
  ): Promise<Thread> {
    if (typeof typeOrOptions === "string" && typeOrOptions !== this.nativeType) {
      const type = this.registry.get(typeOrOptions);
      if (type?.local) return this.#createLocal(type, options ?? {});
      if (!type?.create) {
        throw new UnsupportedOperationError(
          typeOrOptions,
          "create",
          "its adapter is not installed or cannot create threads.",
        );
      }
      return type.create(options ?? {}, this.#environment());
    }
    const settings = (typeof typeOrOptions === "string" ? options : typeOrOptions) ?? {};
    return this.#createLog(this.nativeType, settings as CreateThreadOptions);
  }

  /** A local thread of an application's own type: the store's local thread with the type's fields. */
  async #createLocal(type: ThreadType, options: Record<string, unknown>): Promise<Thread> {
    const { id, metadata, context, owner, title, expiresAt, ...fields } = options as CreateThreadOptions &
      Record<string, unknown>;
    const settings = {
      ...(owner === undefined ? {} : { owner }),
      ...(title === undefined ? {} : { title }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      id: id ?? newSortableId(),
      metadata: jsonObjectField(metadata ?? {}, "metadata"),
      context: jsonObjectField(context ?? {}, "context"),
    };
    assertThreadId(settings.id);
    assertNoFieldsKey(settings.context);
    assertNoCatalogueKey(settings.context);
    // Validated and migrated as the whole state before anything is written, so errors name the field.
    const parsed = this.registry.parse(
      {
        ...fields,
        $type: type.type,
        $v: type.version,
        id: settings.id,
        createdAt: new Date().toISOString(),
        metadata: settings.metadata,
        context: settings.context,
      },
      { unknown: "preserve" },
    ) as ThreadState;
    return this.#createLog(type.type, {
      ...settings,
      context: { ...(parsed.context ?? {}), [FIELDS_KEY]: { $v: type.version, ...ownFields(parsed) } },
    });
  }

  async #createLog(type: string, settings: CreateThreadOptions): Promise<Thread> {
    const id = settings.id === undefined ? newSortableId() : settings.id;
    assertThreadId(id);
    // Refused here what export could not carry or import would refuse; `undefined` properties dropped.
    const metadata = jsonObjectField(settings.metadata ?? {}, "metadata");
    const context = jsonObjectField(settings.context ?? {}, "context");
    if (type === this.nativeType) assertNoFieldsKey(context);
    assertNoCatalogueKey(context);
    const catalogue = changedCatalogue(
      {},
      { owner: settings.owner, title: settings.title, expiresAt: settings.expiresAt },
    );
    const now = new Date().toISOString();
    const head = newHeadSegment(this.driver, id, null, 0);
    const record: LogRecord = {
      kind: "log",
      id,
      type,
      createdAt: now,
      updatedAt: now,
      revision: 0,
      metadata: cloneJson(metadata),
      // Nested states (context providers' states) validated and migrated before anything is written.
      context: withCatalogue(cloneJson(parseContext(this.registry, context)), catalogue),
      head: head.id,
      length: 0,
      events: [],
    };
    await this.#createReplacingExpired(record, head);
    return this.bindRecord(record);
  }

  /**
   * `createLog`; an id held by an expired thread no sweep has deleted yet is free to readers, so that
   * thread is deleted (at the revision found expired) and the create tried once more.
   */
  async #createReplacingExpired(record: LogRecord, head: ReturnType<typeof newHeadSegment>): Promise<void> {
    try {
      await this.driver.createLog(record, head);
    } catch (error) {
      if (!ThreadExistsError.isInstance(error)) throw error;
      const held = await this.driver.read(record.id);
      if (!held || !this.expired(held)) throw error;
      // A write to it in between makes the fenced delete fail, and the create refuses as it would have.
      // `deleteRecord` also drops the segments of a reply left streaming in the expired thread.
      await deleteRecord(
        this.driver,
        record.id,
        this.nativeType,
        this.driver.fencedDelete ? { ifRevision: held.revision } : {},
      );
      await this.driver.createLog(record, head);
    }
  }

  async get(id: string): Promise<Thread> {
    assertThreadId(id);
    const record = await this.driver.read(id);
    if (!record || this.expired(record)) throw new ThreadNotFoundError(id, { source: this.driver.source });
    if (record.kind === "log") return this.bindRecord(record);
    const typeId = record.state.$type;
    const type = typeof typeId === "string" ? this.registry.get(typeId) : undefined;
    if (type && !type.bind && !type.local && type.storage !== "reference" && type.type !== this.nativeType) {
      throw new UnsupportedOperationError(
        type.type,
        "store.get",
        `it is a plain state type (registered without bind), so there is no thread to bind; read it with store.getState(${JSON.stringify(id)})`,
      );
    }
    return this.#open(record.state, true);
  }

  getState<State extends ThreadState = ThreadState>(id: string): Promise<State>;
  getState(id: string, options: ParseOptions): Promise<ParsedState>;
  async getState(id: string, options: ParseOptions = {}): Promise<ParsedState> {
    assertThreadId(id);
    const record = await this.driver.read(id);
    if (!record || this.expired(record)) throw new ThreadNotFoundError(id, { source: this.driver.source });
    return this.registry.parse(record.kind === "state" ? record.state : this.serialize(record), options);
  }

  open(json: unknown): Promise<Thread> {
    return this.#open(json, false);
  }

  /** `open`; `stored` says the state was read from this store (see `BindEnvironment.stored`). */
  async #open(json: unknown, stored: boolean): Promise<Thread> {
    // Nested states of types not installed here stay opaque; the thread itself must be of a known type.
    const state = this.registry.parse(json, { unknown: "preserve" });
    if (OpaqueThreadState.isInstance(state))
      throw new UnknownThreadTypeError(state.$type, SKEIN_TYPE_PACKAGES[state.$type]);
    if (state.$type === this.nativeType) {
      const record = await this.driver.read(state.id);
      if (this.expired(record)) throw new ThreadNotFoundError(state.id, { source: this.driver.source });
      if (record?.kind === "log") return this.bindRecord(record);
      // Memory JSON carries its whole log, so a memory store brings it in; other kinds' JSON only refers to a log.
      if (record === undefined && state.$type === "memory" && LogStateSchema.safeParse(state).success) {
        return this.import(state);
      }
      throw new ThreadNotFoundError(state.id, { source: this.driver.source });
    }
    const type = this.registry.get(state.$type);
    if (type?.local) {
      const record = await this.driver.read(state.id);
      if (this.expired(record)) throw new ThreadNotFoundError(state.id, { source: this.driver.source });
      if (record?.kind === "log" && record.type === state.$type) return this.bindRecord(record);
      // As for memory JSON: a local type's JSON with its whole log brings the thread into a memory store.
      if (record === undefined && this.nativeType === "memory" && LogStateSchema.safeParse(state).success) {
        return this.import(state);
      }
      throw new ThreadNotFoundError(state.id, { source: this.driver.source });
    }
    if (type?.storage === "reference") {
      // A reference to a local thread of another store kind (a workflow moved by `skein migrate`): the log
      // with that id in this store is the thread.
      const record = await this.driver.read(state.id);
      if (this.expired(record)) throw new ThreadNotFoundError(state.id, { source: this.driver.source });
      if (record?.kind === "log") return this.bindRecord(record);
    }
    if (!type?.bind) return new PlainStateThread(state, this);
    return type.bind(state, { ...this.#environment(), stored });
  }

  async save(thread: Thread | ThreadState, options?: { ifRevision?: number }): Promise<{ revision: number }> {
    options = withIfRevision("store.save", options, "save(thread, { ifRevision: 3 })");
    if (typeof (thread as Partial<Thread> | null)?.toJSON !== "function") {
      return this.#saveState(thread as ThreadState, options);
    }
    return this.#saveThread(thread as Thread, options);
  }

  /** A plain state of a registered type: validated and migrated, then written as a state document. */
  async #saveState(json: ThreadState, options: { ifRevision?: number }): Promise<{ revision: number }> {
    const state = this.registry.parse(json) as ThreadState;
    const type = this.registry.get(state.$type);
    if (state.$type === this.nativeType || state.$type === "memory" || type?.local || type?.storage) {
      throw new UnsupportedOperationError(
        state.$type,
        "store.save of its JSON",
        "its threads are local threads with a log; bring one in with store.import(exported JSON), or save the thread object itself.",
      );
    }
    const record = await this.driver.putState(state.id, cloneJson(state) as JsonObject, options);
    return { revision: record.revision };
  }

  async #saveThread(thread: Thread, options: { ifRevision?: number }): Promise<{ revision: number }> {
    if (thread instanceof LogThread && thread.host === this) return { revision: thread.revision }; // persisted as it changed
    if (thread instanceof LogThread && thread.type !== "memory") {
      throw new UnsupportedOperationError(
        thread.type,
        "saving into another store",
        "it lives in its own store; copy it with store.import(await otherStore.export(id)) or `skein migrate`.",
      );
    }
    const state = jsonData(thread.toJSON());
    if (state.$type === this.nativeType) {
      // A memory thread from elsewhere saved into a memory store becomes one of its logs, replacing the old.
      await this.driver.delete(thread.id);
      const imported = await this.import(state);
      return { revision: imported.revision ?? 0 };
    }
    if (options.ifRevision === undefined && typeof state.revision === "number") {
      // A state that carries its revision (a workflow) must store the revision it is saved as.
      const stored = await this.driver.read(thread.id);
      const ifRevision = stored?.kind === "state" ? stored.revision : 0;
      const record = await this.driver.putState(
        thread.id,
        { ...state, revision: ifRevision + 1 } as unknown as JsonObject,
        { ifRevision },
      );
      return { revision: record.revision };
    }
    const record = await this.driver.putState(thread.id, state as unknown as JsonObject, options);
    return { revision: record.revision };
  }

  async import(json: unknown, options: { id?: string } = {}): Promise<Thread> {
    if (isSealedExport(json)) {
      const record = await importSealed(this.driver, this.nativeType, json, options);
      return record.kind === "log"
        ? this.bindRecord((await this.driver.read(record.id)) as LogRecord)
        : this.get(record.id);
    }
    const state = this.registry.parse(json, { unknown: "preserve" });
    const raw = OpaqueThreadState.isInstance(state) ? state.raw : state;
    const log = LogStateSchema.safeParse(raw);
    const localType = OpaqueThreadState.isInstance(state) ? undefined : this.registry.get(state.$type);
    if (
      !OpaqueThreadState.isInstance(state) &&
      log.success &&
      (state.$type === "memory" || localType?.local)
    ) {
      const id = options.id ?? state.id;
      assertThreadId(id);
      // The parsed state: its nested states (and a local type's fields) validated and migrated.
      const parsed = LogStateSchema.parse(state);
      assertNoFieldsKey(parsed.context);
      const logState = localType?.local
        ? {
            ...parsed,
            context: { ...parsed.context, [FIELDS_KEY]: { $v: localType.version, ...ownFields(state) } },
          }
        : parsed;
      const record = await importLog(
        this.driver,
        logState as typeof parsed,
        id,
        localType?.local ? state.$type : undefined,
      );
      return this.bindRecord(record);
    }
    if (OpaqueThreadState.isInstance(state)) {
      throw new InvalidThreadStateError(
        `type ${quoteUntrusted(state.$type)} is not registered here; install its adapter to import it`,
      );
    }
    if (
      state.$type === this.nativeType ||
      this.registry.get(state.$type)?.storage === "reference" ||
      localType?.local
    ) {
      throw new InvalidThreadStateError(
        `a ${quoteUntrusted(state.$type)} state only refers to a log its store keeps; import the thread's export (memory JSON) instead`,
      );
    }
    const id = options.id ?? state.id;
    assertThreadId(id);
    const document: JsonObject = {
      ...(asJson(state) as unknown as JsonObject),
      id,
      ...(typeof raw.revision === "number" ? { revision: 1 } : {}),
    };
    const opened = await this.open(document); // refuse what cannot be opened here before writing anything
    try {
      await this.driver.putState(id, document, { ifRevision: 0 });
    } catch (error) {
      if (ConcurrencyError.isInstance(error) || ConflictError.isInstance(error)) {
        throw new ThreadExistsError(id, { source: this.driver.source, cause: error });
      }
      throw error;
    }
    // A plain state has no behaviour to bind again: the state it was opened as is the thread.
    return opened instanceof PlainStateThread ? opened : this.get(id);
  }

  async export(id: string, options: { encrypted?: boolean } = {}): Promise<LogState | ThreadState> {
    if (options.encrypted === true) {
      // An expired thread is gone for readers, sealed or not. Its expiry is read opened (expiresAt is sealed
      // with the context); one this process cannot open is left to the sealed export, which refuses it.
      assertThreadId(id);
      const held = await this.driver.read(id).catch((error: unknown) => {
        if (KeyNotFoundError.isInstance(error)) return undefined;
        throw error;
      });
      if (held && this.expired(held)) throw new ThreadNotFoundError(id, { source: this.driver.source });
      return (await exportSealed(this.driver, this.nativeType, id)) as unknown as LogState;
    }
    assertThreadId(id);
    const record = await this.driver.read(id);
    if (!record || this.expired(record)) throw new ThreadNotFoundError(id, { source: this.driver.source });
    // Read through the registry like every other read, so an export is migrated and two stores holding
    // the same thread (one written by an older version) export the same JSON; unknown types stay as stored.
    if (record.kind === "state") return asJson(this.registry.parse(record.state, { unknown: "preserve" }));
    return withLocalFields(await exportLog(this.chains, record), record, this.registry) as LogState;
  }

  /**
   * A page of threads: by id (the default), by last change or by creation, one owner's or all, filtered
   * by metadata. Served by the driver's index when it keeps one (`LogDriver.catalogue`), else by a scan.
   */
  async list(options: ListOptions = {}): Promise<ThreadPage> {
    const query = listQuery(options);
    if (query.order === "updated" && query.direction === "asc" && query.until === undefined) {
      query.until = await walkStart();
    }
    // One more than the page, to know whether a next page exists.
    const asked: CatalogueQuery = { ...query, limit: query.limit + 1 };
    const records = await visiblePage(
      asked,
      (page) => (this.driver.catalogue ? this.driver.catalogue(page) : scanCatalogue(this.driver, page)),
      (record) => this.expired(record),
    );
    const items = records.slice(0, query.limit).map((record) => catalogueEntry(record));
    const last = items[items.length - 1];
    if (records.length <= query.limit || !last) return { items };
    return { items, cursor: encodeCursor(query, { key: orderKey(last, query.order), id: last.id }) };
  }

  /**
   * How many threads `list` gives for `owner` and `where`, where the driver counts without reading every
   * thread; else `UnsupportedOperationError`.
   */
  async count(options: CountOptions = {}): Promise<number> {
    const query = { scope: "", ...countQuery(options) };
    const counted = await visibleCount(this.driver, this.retention, query);
    if (counted === undefined) {
      throw new UnsupportedOperationError(
        this.nativeType,
        "store.count",
        `the ${this.driver.source} store cannot count ${query.where ? "by metadata" : "threads"} without reading every thread; page through store.list instead`,
        { source: this.driver.source },
      );
    }
    return counted;
  }

  /** The same store seen by one tenant: its threads are invisible to, and unreachable from, every other scope. */
  scope(tenant: string, options: ScopeOptions = {}): LocalStore {
    const checked = optionsObject("store.scope", options, '{ retention: { idleFor: "30d" } }');
    const scoped = new LocalStore({
      driver: new ScopedLogDriver(this.driver, tenant),
      registry: this.registry,
      url: this.url,
      adapters: this.adapters,
      serialize: this.#serialize,
    });
    // The scope's own policy, or the store's.
    scoped.retention =
      checked.retention === undefined ? this.retention : retentionPolicy(checked.retention, "store.scope");
    return scoped;
  }

  async shredOwner(owner: string): Promise<void> {
    await shredOwner(this.driver, this.nativeType, owner);
  }

  async delete(id: string, options?: { ifRevision?: number }): Promise<boolean> {
    assertThreadId(id);
    const checked = withIfRevision("store.delete", options, "delete(id, { ifRevision: 3 })");
    return deleteRecord(this.driver, id, this.nativeType, checked);
  }

  /** Erases one owner's threads in this store and its scopes; see `ThreadStore.erase`. */
  erase(options: EraseOptions): Promise<ErasureReport> {
    return eraseOwner(
      {
        driver: this.driver,
        chains: this.chains,
        storeFor: (scopes) => scopes.reduce<LocalStore>((store, scope) => store.scope(scope), this),
        bindsState: (record) => {
          const typeId = record.kind === "state" ? record.state.$type : undefined;
          const type = typeof typeId === "string" ? this.registry.get(typeId) : undefined;
          // An unknown type may be a service's thread: only its adapter can delete it there.
          return type === undefined || type.bind !== undefined;
        },
        scoped: this.driver instanceof ScopedLogDriver,
      },
      options,
    );
  }

  /** Re-encrypts what an older key sealed with the current one (`ThreadStore.rekey`); encrypted stores only. */
  rekey(options?: RekeyOptions): Promise<RekeyReport> {
    return rekeyDriver(this.driver, options);
  }

  async close(): Promise<void> {
    await this.driver.close();
  }

  /** `await using store = await openStore(url)` closes the store at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  bindRecord(record: LogRecord): Thread {
    return new TypedLocalThread(this, record);
  }

  serialize(record: LogRecord): ThreadState {
    return withLocalFields(this.#serialize(record, this.chains), record, this.registry);
  }

  #environment() {
    return { registry: this.registry, store: this, adapters: this.adapters };
  }
}

// Spans for every store and local-thread operation when an application traces with OpenTelemetry.
traceMethods(LocalStore.prototype, STORE_SPANS);
traceMethods(LogThread.prototype, THREAD_SPANS);

function referenceState(record: LogRecord): ThreadState {
  return {
    $type: record.type,
    $v: 1,
    id: record.id,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    metadata: cloneJson(record.metadata),
    context: cloneJson(record.context),
    revision: record.revision,
  };
}

/** A parsed state as plain JSON (nested opaque states become the JSON they hold). */
function asJson(state: unknown): ThreadState {
  return JSON.parse(JSON.stringify(state)) as ThreadState;
}

/**
 * Where an ascending walk by last change ends: the time it starts, once the clock has moved past it, so
 * every change made after the first page is read is stamped later and stays out of the walk (a thread that
 * moves while a client pages appears at most once). Waits at most about a millisecond.
 */
async function walkStart(): Promise<string> {
  const start = Date.now();
  while (Date.now() <= start) await new Promise((resolve) => setTimeout(resolve, 1));
  return new Date(start).toISOString();
}
