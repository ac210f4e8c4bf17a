import {
  ConcurrencyError,
  ConflictError,
  type HistoryEvent,
  type JsonObject,
  type Message,
  ThreadExistsError,
  ThreadNotFoundError,
  UnsupportedOperationError,
} from "@skein/thread-core";
import {
  type CommitResult,
  defineLogStore,
  HeadMovedError,
  importConflicts,
  type LogChange,
  type LogDriver,
  type LogRecord,
  messageConflict,
  type RecordSummary,
  type SegmentInfo,
  type StateRecord,
  type StoredRecord,
} from "@skein/thread-core/driver";

/** What the driver needs of a SQLite client: the synchronous API of better-sqlite3. */
export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): {
    get(...values: unknown[]): Record<string, unknown> | undefined;
    all(...values: unknown[]): Record<string, unknown>[];
    run(...values: unknown[]): { changes: number };
  };
  transaction<Result>(work: () => Result): () => Result;
  close(): void;
}

const TABLES = `
  CREATE TABLE IF NOT EXISTS records (id TEXT PRIMARY KEY, kind TEXT, type TEXT, revision INTEGER,
    created_at TEXT, updated_at TEXT, metadata TEXT, context TEXT, state TEXT, head TEXT, length INTEGER,
    events TEXT, operations TEXT);
  CREATE INDEX IF NOT EXISTS records_head ON records (head);
  CREATE TABLE IF NOT EXISTS segments (id TEXT PRIMARY KEY, base TEXT, base_offset INTEGER, start INTEGER,
    created_at TEXT, length INTEGER);
  CREATE TABLE IF NOT EXISTS messages (segment TEXT, "offset" INTEGER, id TEXT, system INTEGER, json TEXT,
    PRIMARY KEY (segment, "offset"), UNIQUE (segment, id));`;

type Row = Record<string, unknown>;
const source = { source: "acme-sqlite" };

/**
 * Local threads in SQLite. Every change runs in one `db.transaction` (SQLite's lock makes it atomic); reads
 * use the primary keys. A skeleton: segments are never reclaimed, and events live in the record's row (keep
 * them in a table of their own so that a commit costs the same however many a thread has).
 */
export class SqliteLogDriver implements LogDriver {
  readonly specificationVersion = "v1";
  readonly source = source.source;
  readonly nativeType = "acme.sqlite";

  constructor(readonly db: SqliteDatabase) {
    db.exec(TABLES);
  }

  async read(id: string): Promise<StoredRecord | undefined> {
    const row = this.db.prepare("SELECT * FROM records WHERE id = ?").get(id);
    return row && toRecord(row);
  }

  async createLog(record: LogRecord, head: SegmentInfo): Promise<void> {
    this.db.transaction(() => {
      if (this.db.prepare("SELECT 1 FROM records WHERE id = ?").get(record.id)) {
        throw new ThreadExistsError(record.id, source);
      }
      this.#insertSegment(head);
      this.db
        .prepare("INSERT INTO records VALUES (?, 'log', ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)")
        .run(
          record.id,
          record.type,
          record.revision,
          record.createdAt,
          record.updatedAt,
          JSON.stringify(record.metadata),
          JSON.stringify(record.context),
          record.head,
          record.length,
          JSON.stringify(record.events),
          JSON.stringify(record.operations ?? null),
        );
    })();
  }

  async commit(id: string, change: LogChange): Promise<CommitResult> {
    return this.db.transaction((): CommitResult => {
      // 1. The checks, in this order, before anything is written.
      const row = this.db.prepare("SELECT * FROM records WHERE id = ?").get(id);
      if (row?.kind !== "log") throw new ThreadNotFoundError(id, source);
      const record = toRecord(row) as LogRecord;
      if (change.ifRevision !== undefined && change.ifRevision !== record.revision) {
        throw new ConcurrencyError(id, change.ifRevision, record.revision, source);
      }
      if (record.head !== change.expectHead) throw new HeadMovedError(id, source);
      const append = change.append ?? [];
      const headStart = Number(
        this.db.prepare("SELECT start FROM segments WHERE id = ?").get(record.head)?.start,
      );
      // 3 (checked first). Ids the head holds already: write nothing and answer with them.
      if (!change.newHead && append.length > 0) {
        const held = append
          .map((message) =>
            this.db
              .prepare("SELECT json FROM messages WHERE segment = ? AND id = ?")
              .get(record.head, message.id),
          )
          .filter((found) => found !== undefined)
          .map((found) => JSON.parse(String(found.json)) as Message);
        if (held.length > 0) return { record, messages: [], held };
      }
      const next: LogRecord = { ...record };
      const event = change.event && (structuredClone(change.event) as HistoryEvent);
      let start = headStart;
      // 2. A rollback's `from` is the end before it; then the new head.
      if (change.newHead) {
        if (event?.kind === "rollback") event.from = endOf(record, headStart);
        this.#insertSegment(change.newHead);
        next.head = change.newHead.id;
        next.length = change.newHead.start;
        start = change.newHead.start;
      }
      // 3. The messages, after the head's last.
      for (const [index, message] of append.entries()) {
        this.db
          .prepare('INSERT INTO messages (segment, "offset", id, system, json) VALUES (?, ?, ?, ?, ?)')
          .run(
            next.head,
            next.length - start + index,
            message.id,
            message.role === "system" ? 1 : 0,
            JSON.stringify(message),
          );
      }
      next.length += append.length;
      // 4. A checkpoint's point is the end after the append.
      if (event?.kind === "checkpoint") event.checkpoint.point = endOf(next, start);
      // 5. Metadata, context and operations; one revision for the whole change.
      if (change.metadata) next.metadata = change.metadata;
      if (change.context) next.context = change.context;
      if (change.operations) next.operations = change.operations;
      const changed =
        change.newHead || append.length || event || change.metadata || change.context || change.operations;
      if (!changed) return { record, messages: [] };
      next.revision = record.revision + 1;
      next.updatedAt = new Date().toISOString();
      if (event) next.events = [...record.events, { ...event, revision: next.revision }];
      this.db
        .prepare(
          "UPDATE records SET revision = ?, updated_at = ?, head = ?, length = ?, metadata = ?, context = ?, events = ?, operations = ? WHERE id = ?",
        )
        .run(
          next.revision,
          next.updatedAt,
          next.head,
          next.length,
          JSON.stringify(next.metadata),
          JSON.stringify(next.context),
          JSON.stringify(next.events),
          JSON.stringify(next.operations ?? null),
          id,
        );
      return { record: next, messages: structuredClone(append) };
    })();
  }

  async putState(id: string, state: JsonObject, options: { ifRevision?: number } = {}): Promise<StateRecord> {
    return this.db.transaction((): StateRecord => {
      const row = this.db.prepare("SELECT kind, revision FROM records WHERE id = ?").get(id);
      if (row?.kind === "log")
        throw new ConflictError(`${id} is a local thread; its state is its log.`, undefined, source);
      const revision = Number(row?.revision ?? 0);
      if (options.ifRevision !== undefined && options.ifRevision !== revision) {
        throw new ConcurrencyError(id, options.ifRevision, revision, source);
      }
      const updatedAt = new Date().toISOString();
      this.db
        .prepare(
          "INSERT OR REPLACE INTO records (id, kind, type, revision, updated_at, state) VALUES (?, 'state', ?, ?, ?, ?)",
        )
        .run(id, String(state.$type), revision + 1, updatedAt, JSON.stringify(state));
      return { kind: "state", id, revision: revision + 1, updatedAt, state: structuredClone(state) };
    })();
  }

  async delete(id: string): Promise<boolean> {
    return this.db.prepare("DELETE FROM records WHERE id = ?").run(id).changes > 0;
  }

  async list(options: { prefix?: string; after?: string; limit: number }): Promise<RecordSummary[]> {
    // SQLite's default (BINARY) text order is UTF-8 byte order; ids above U+FFFF need a sort key of their own.
    const rows = this.db
      .prepare(
        "SELECT id, type, updated_at FROM records WHERE id > ? AND substr(id, 1, ?) = ? ORDER BY id LIMIT ?",
      )
      .all(options.after ?? "", (options.prefix ?? "").length, options.prefix ?? "", options.limit);
    return rows.map((row) => ({
      id: String(row.id),
      type: String(row.type),
      updatedAt: String(row.updated_at),
    }));
  }

  async segment(id: string): Promise<SegmentInfo | undefined> {
    const row = this.db.prepare("SELECT * FROM segments WHERE id = ?").get(id);
    if (!row) return undefined;
    const base = row.base === null ? null : { segment: String(row.base), offset: Number(row.base_offset) };
    return { id, base, start: Number(row.start), createdAt: String(row.created_at) };
  }

  async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    return this.db
      .prepare(
        'SELECT json FROM messages WHERE segment = ? AND "offset" >= ? AND "offset" < ? ORDER BY "offset"',
      )
      .all(id, from, to)
      .map((row) => JSON.parse(String(row.json)) as Message);
  }

  async locate(id: string, messageId: string, before: number) {
    const row = this.db
      .prepare('SELECT "offset" FROM messages WHERE segment = ? AND id = ? AND "offset" < ?')
      .get(id, messageId, before);
    return row && { offset: Number(row.offset) };
  }

  async systemOffsets(id: string, before: number): Promise<number[]> {
    return this.db
      .prepare(
        'SELECT "offset" FROM messages WHERE segment = ? AND system = 1 AND "offset" < ? ORDER BY "offset"',
      )
      .all(id, before)
      .map((row) => Number(row.offset));
  }

  async importSegment(info: SegmentInfo, messages: Message[], from: number): Promise<void> {
    const refuse = importConflicts(info.id, source.source);
    this.db.transaction(() => {
      if (!this.db.prepare("SELECT 1 FROM segments WHERE id = ?").get(info.id)) {
        if (from !== 0) throw refuse.missingStart(from);
        this.#insertSegment(info);
      }
      const length = Number(
        this.db.prepare("SELECT count(*) AS n FROM messages WHERE segment = ?").get(info.id)?.n,
      );
      // Offsets the segment holds already must hold the same messages; the rest continue it, with no gap.
      const existing = Math.max(0, Math.min(messages.length, length - from));
      for (const [index, message] of messages.slice(0, existing).entries()) {
        const row = this.db
          .prepare('SELECT json FROM messages WHERE segment = ? AND "offset" = ?')
          .get(info.id, from + index);
        const held = JSON.parse(String(row?.json)) as Message;
        if (held.id !== message.id) throw refuse.otherMessage(from + index, message.id);
        const conflict = messageConflict(held, message, source.source);
        if (conflict) throw conflict;
      }
      const fresh = messages.slice(existing);
      if (fresh.length === 0) return;
      if (from + existing !== length) throw refuse.gap(length);
      if (this.db.prepare("SELECT 1 FROM records WHERE head = ?").get(info.id)) throw refuse.liveHead();
      for (const [index, message] of fresh.entries()) {
        this.db
          .prepare('INSERT INTO messages (segment, "offset", id, system, json) VALUES (?, ?, ?, ?, ?)')
          .run(
            info.id,
            length + index,
            message.id,
            message.role === "system" ? 1 : 0,
            JSON.stringify(message),
          );
      }
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }

  #insertSegment(info: SegmentInfo): void {
    this.db
      .prepare("INSERT INTO segments VALUES (?, ?, ?, ?, ?, 0)")
      .run(info.id, info.base?.segment ?? null, info.base?.offset ?? null, info.start, info.createdAt);
  }
}

function toRecord(row: Row): StoredRecord {
  if (row.kind === "state") {
    const state = JSON.parse(String(row.state)) as JsonObject;
    return {
      kind: "state",
      id: String(row.id),
      revision: Number(row.revision),
      updatedAt: String(row.updated_at),
      state,
    };
  }
  const operations = JSON.parse(String(row.operations ?? "null")) as LogRecord["operations"] | null;
  return {
    kind: "log",
    id: String(row.id),
    type: String(row.type),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
    revision: Number(row.revision),
    metadata: JSON.parse(String(row.metadata)),
    context: JSON.parse(String(row.context)),
    head: String(row.head),
    length: Number(row.length),
    events: JSON.parse(String(row.events)),
    ...(operations ? { operations } : {}),
  };
}

function endOf(record: LogRecord, headStart: number) {
  return { segment: record.head, offset: record.length - headStart, position: record.length };
}

/** `sqliteStore({ database })`, and `sqliteAdapter()` for `openStore("sqlite:…")` once you open a database per URL. */
export const {
  threadType: sqliteThreadType,
  store: sqliteStore,
  adapter: sqliteAdapter,
} = defineLogStore<{
  database: SqliteDatabase;
}>({
  type: "acme.sqlite",
  packageName: "acme-sqlite",
  schemes: ["sqlite"],
  createDriver: (options) => new SqliteLogDriver(options.database),
  optionsFromUrl: () => {
    throw new UnsupportedOperationError(
      "acme.sqlite",
      "opening by URL",
      "open the database and pass it: sqliteStore({ database })",
    );
  },
  describe: () => "sqlite:",
});
