import {
  type CatalogueQuery,
  type CountQuery,
  catalogueEntry,
  matchesQuery,
  orderKey,
  type StoredRecord,
} from "@skein/thread-core/driver";
import {
  type CatalogueEntryArguments,
  CatalogueRange,
  countRange,
  entryArguments,
  scopeOf,
} from "./catalogue-members.js";
import type { CatalogueKeys, KeyLayout } from "./key-layout.js";
import { decodeRecord, hashFields } from "./record-codec.js";
import type { RecordIndex } from "./record-index.js";
import type { RedisConnection } from "./redis-connection.js";
import { CATALOGUE_STEP } from "./scripts/catalogue-step.js";
import { toSortableText } from "./sortable-text.js";

/**
 * The catalogue's version in `<prefix>:catalogue`: set once records written before it are indexed. "2"
 * added the expiry members (expiry-range.ts): a store marked "1" is indexed again, once, to add them.
 */
const CATALOGUE_VERSION = "2";
/** How many records the build indexes at once. */
const BUILD_BATCH = 500;
/** With `where`, each read of the index fetches at least this many members, since some are filtered out. */
const FILTERED_BATCH = 100;
/** The record fields a listing reads: all but the events list and `operations` (an encrypted store checks `end`). */
const LISTED_FIELDS = [
  "kind",
  "id",
  "type",
  "createdAt",
  "updatedAt",
  "revision",
  "metadata",
  "context",
  "head",
  "length",
  "end",
  "state",
];
/** How often a single server's repair re-reads a record that keeps changing under it. */
const REPAIR_ATTEMPTS = 5;

/**
 * `store.list` and `store.count` from an index: per scope, a sorted set of every record's positions by
 * owner and order (catalogue-members.ts) and a hash of each record's entry. On a single server every
 * change to a record changes its entry in the same script; on Redis Cluster the catalogue lives in its
 * scope's slot, apart from the records, and is changed in a step of its own (see the README: "The catalogue").
 */
export class RedisCatalogue {
  #built: Promise<void> | undefined;

  constructor(
    readonly connection: RedisConnection,
    readonly layout: KeyLayout,
    readonly index: RecordIndex,
  ) {}

  /** On a single server, the record scripts keep the catalogue in their own step and need its keys. */
  get inline(): boolean {
    return !this.connection.cluster;
  }

  keysOf(id: string): CatalogueKeys {
    return this.layout.catalogue(scopeOf(id));
  }

  /** The page `query` asks for: O(log n + page) reads of the index, and one record read per listed id. */
  async page(query: CatalogueQuery): Promise<StoredRecord[]> {
    await this.ready();
    const keys = this.layout.catalogue(query.scope);
    const range = new CatalogueRange(query);
    let bounds = { low: range.low, high: range.high };
    const found: StoredRecord[] = [];
    const filtered = query.where !== undefined || (query.prefix !== undefined && query.order !== "id");
    while (found.length < query.limit) {
      const wanted = query.limit - found.length;
      const batch = filtered ? Math.max(wanted, FILTERED_BATCH) : wanted;
      const args =
        query.direction === "asc"
          ? ["ZRANGE", keys.order, bounds.low, bounds.high, "BYLEX", "LIMIT", "0", String(batch)]
          : ["ZRANGE", keys.order, bounds.high, bounds.low, "BYLEX", "REV", "LIMIT", "0", String(batch)];
      const members = (await this.connection.command(keys.order, args, true)) as string[];
      const positions = members.map((member) => range.position(member));
      const records = await Promise.all(positions.map((position) => this.read(position.id)));
      for (const [index, position] of positions.entries()) {
        const record = records[index];
        if (!record) {
          await this.repairEntry(position.id);
          continue;
        }
        const entry = catalogueEntry(record);
        // An entry that no longer says where the record is (on Cluster, a commit whose catalogue step is
        // still on its way, or one a failure left behind) is not listed here: its own entry is.
        if (
          orderKey(entry, query.order) !== position.key ||
          (query.owner !== undefined && entry.owner !== query.owner)
        ) {
          await this.repairEntry(position.id);
          continue;
        }
        if (!record.id.startsWith(range.idStart)) continue;
        if (!matchesQuery(entry, position.key, { ...query, prefix: undefined })) continue;
        if (found.length < query.limit) found.push(record);
      }
      const last = members[members.length - 1];
      if (members.length < batch || last === undefined) break;
      bounds = CatalogueRange.after(bounds, Buffer.from(last), query.direction);
    }
    return found;
  }

  /** How many records of the scope (and owner) there are: `ZLEXCOUNT`, O(log n). Not by metadata. */
  async count(query: CountQuery): Promise<number | undefined> {
    if (query.where !== undefined && Object.keys(query.where).length > 0) return undefined;
    await this.ready();
    const keys = this.layout.catalogue(query.scope);
    const [low, high] = countRange(query.owner);
    return Number(await this.connection.command(keys.order, ["ZLEXCOUNT", keys.order, low, high], true));
  }

  /**
   * On Cluster, before a record is created: its entry is placed where none is (revision -1, which every
   * real one replaces), so the thread is never committed unlisted. A listing skips it until the record
   * exists; the step after the record's script sets the real entry.
   */
  async placeFirst(id: string, entry: CatalogueEntryArguments): Promise<void> {
    const [, owner, updated, created, expiry] = entry;
    await this.#put(id, ["-1", owner, updated, created, expiry]);
  }

  /**
   * On Cluster, after a record's script: its entry moves to what the record is now. An entry of a newer
   * revision stays, so steps of concurrent writers that arrive out of order never move it back.
   */
  async putRecord(record: StoredRecord): Promise<void> {
    await this.#put(record.id, entryArguments(record));
  }

  async #put(id: string, entry: CatalogueEntryArguments): Promise<void> {
    const keys = this.keysOf(id);
    await this.connection.script(
      CATALOGUE_STEP,
      [keys.entries, keys.order],
      ["put", toSortableText(id), ...entry],
    );
  }

  /** On Cluster, after a record is deleted: its entry goes, and comes back if a record appeared meanwhile. */
  async remove(id: string): Promise<void> {
    const keys = this.keysOf(id);
    await this.connection.script(CATALOGUE_STEP, [keys.entries, keys.order], ["remove", toSortableText(id)]);
    await this.repairEntry(id);
  }

  /** Removes `member` of the order set unless `id`'s entry holds it: what a repair leaves of an older writer's. */
  async prune(id: string, member: string): Promise<void> {
    const keys = this.keysOf(id);
    await this.connection.script(
      CATALOGUE_STEP,
      [keys.entries, keys.order],
      ["prune", toSortableText(id), member],
    );
  }

  /**
   * Makes `id`'s entry say what its record says now (or removes it when there is none). On a single server
   * the step checks the record's revision in the same script; on Cluster the revision guard keeps a newer
   * entry, so a repair never undoes a writer's step.
   */
  async repairEntry(id: string): Promise<void> {
    const keys = this.keysOf(id);
    const recordKey = this.layout.record(id).record;
    const scriptKeys = this.inline ? [keys.entries, keys.order, recordKey] : [keys.entries, keys.order];
    for (let attempt = 0; attempt < REPAIR_ATTEMPTS; attempt++) {
      const record = await this.read(id);
      const args = record
        ? ["put", toSortableText(id), ...entryArguments(record)]
        : ["remove", toSortableText(id)];
      const outcome = await this.connection.script(CATALOGUE_STEP, scriptKeys, args);
      if (outcome !== "moved" && outcome !== "exists") return;
    }
  }

  /** A record without its events (a listing reads none), or undefined when it is gone. */
  async read(id: string): Promise<StoredRecord | undefined> {
    const key = this.layout.record(id).record;
    // HMGET, not HGETALL: its reply is a list whatever protocol the client a user passed in speaks.
    const values = (await this.connection.command(key, ["HMGET", key, ...LISTED_FIELDS], true)) as unknown[];
    if (values[0] === null || values[0] === undefined) return undefined;
    return decodeRecord(
      id,
      hashFields(
        LISTED_FIELDS.flatMap((field, index) => (values[index] == null ? [] : [field, values[index]])),
      ),
      [],
    );
  }

  /**
   * Records written before the catalogue (or its expiry members) existed are indexed once per prefix, by
   * the first listing, count or sweep of a process that finds no version mark or an older one: it walks
   * the id index and repairs every entry.
   */
  ready(): Promise<void> {
    this.#built ??= this.#build().catch((error: unknown) => {
      this.#built = undefined;
      throw error;
    });
    return this.#built;
  }

  async #build(): Promise<void> {
    const mark = this.layout.catalogueVersion;
    if ((await this.connection.command(mark, ["GET", mark], true)) === CATALOGUE_VERSION) return;
    let after: string | undefined;
    for (;;) {
      const batch = await this.index.list({ ...(after === undefined ? {} : { after }), limit: BUILD_BATCH });
      await Promise.all(batch.map((item) => this.repairEntry(item.id)));
      const last = batch[batch.length - 1];
      if (batch.length < BUILD_BATCH || !last) break;
      after = last.id;
    }
    await this.connection.command(mark, ["SET", mark, CATALOGUE_VERSION]);
  }
}
