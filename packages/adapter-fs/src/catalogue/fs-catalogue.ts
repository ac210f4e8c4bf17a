import {
  type CatalogueQuery,
  type CountQuery,
  catalogueEntry,
  type ExpiryQuery,
  matchesQuery,
  type StoredRecord,
} from "@skein/thread-core/driver";
import type { DurableFiles } from "../records/durable-files.js";
import { CatalogueIndex, groupName, keyOf } from "./catalogue-index.js";
import { CatalogueJournal, currentBoot } from "./catalogue-journal.js";
import { type CataloguePlace, placeOf, samePlace } from "./catalogue-place.js";
import { scrubJournal } from "./journal-scrub.js";

/** What the catalogue reads of the store: every record's id, and a record as listed (no history). */
export interface CatalogueRecords {
  ids(): Promise<string[]>;
  read(id: string): Promise<StoredRecord | undefined>;
}

/** Journal bytes read past the last snapshot before a process writes a new one (at least its size). */
const SNAPSHOT_AFTER_BYTES = 1 << 20;
/** Records read at once when the catalogue is rebuilt from them. */
const REBUILD_BATCH = 64;

/**
 * The fs store's index for `store.list` and `store.count` (`LogDriver.catalogue`). Writers announce each
 * change in the journal (`announce`, under the thread's lock, before the change can land; `settle` after
 * it landed); a process keeps the catalogue in memory (`CatalogueIndex`), loaded once from the snapshot,
 * and reads only the journal's new lines before each page. A page walks one group's order and reads the
 * record of each thread it meets, listing it only where the record says it is: a thread announced but not
 * landed (a change in flight, or cut short by a crash) is met at both its places and listed at the true
 * one, once. So a page costs its own records, however many threads the store and the owner hold.
 */
export class FsCatalogue {
  readonly journal: CatalogueJournal;
  readonly #index = new CatalogueIndex();
  #loading: Promise<void> | undefined;
  #offset = 0;
  #snapshotOffset = 0;
  #snapshotBytes = 0;

  constructor(
    directory: string,
    files: DurableFiles,
    readonly records: CatalogueRecords,
  ) {
    this.journal = new CatalogueJournal(directory, files);
  }

  /**
   * Announces a change to `id` that moves it from `previous` to `next` (`null`: no record). Call it holding
   * the thread's lock, after every check that may refuse the change and before anything of it can land.
   */
  announce(id: string, next: CataloguePlace | null, previous: CataloguePlace | null): void {
    this.journal.append({ id, places: samePlace(next, previous) ? [next] : [next, previous] });
  }

  /**
   * Says that the change announced last landed at `place`, so listings need not read the thread to know.
   * Still under the lock. Best effort: without it the announcement stays true (readers check the record).
   */
  settle(id: string, place: CataloguePlace | null): void {
    try {
      this.journal.append({ id, places: [place] });
    } catch {
      // A full disk, say: the change landed, and the line announcing it still names where it may be.
    }
  }

  /** One page of `query`, in its order: O(page) records read, plus the journal's lines since the last call. */
  async page(query: CatalogueQuery): Promise<StoredRecord[]> {
    await this.#ready();
    const name = groupName(query.scope, query.owner);
    const prefix = query.prefix === undefined ? undefined : query.scope + query.prefix;
    // The scope is the group's; owner, until and where are checked on the record as read.
    const filters: CatalogueQuery = { ...query, scope: "" };
    delete filters.prefix;
    const found: StoredRecord[] = [];
    const listed = new Set<string>();
    let position = query.after;
    while (found.length < query.limit) {
      position = this.#index.next(name, query.order, query.direction, position);
      if (!position) break;
      // Ascending by last change stops at the walk's bound; by id, past the prefix's ids.
      if (query.until !== undefined && query.direction === "asc" && position.key > query.until) break;
      if (prefix !== undefined && !position.id.startsWith(prefix)) {
        if (query.order === "id" && (query.direction === "asc") === position.id > prefix) break;
        continue;
      }
      const record = await this.records.read(position.id);
      const real = record ? placeOf(record) : null;
      this.#index.learn(position.id, real);
      if (!record || !real || listed.has(position.id)) continue;
      // Listed only at the place the record shows: the other place of a thread met twice is skipped.
      if (keyOf(real, query.order) !== position.key) continue;
      if (!matchesQuery(catalogueEntry(record), position.key, filters)) continue;
      listed.add(position.id);
      found.push(record);
    }
    return found;
  }

  /**
   * The records of `query.scope` whose own `expiresAt` is at most `query.until`, by it then id, after
   * `query.after` (`LogDriver.expiring`): the scope's expiry order is walked and each thread met is read,
   * and listed only where its record shows, so a sweep reads the expired threads and stops at the first
   * that is not. A place announced but not landed (an expiry moved later, a change cut short) costs one
   * read of a record that is then skipped; the sweep checks each record it gets again before deleting.
   */
  async expiring(query: ExpiryQuery): Promise<StoredRecord[]> {
    await this.#ready();
    const name = groupName(query.scope, undefined);
    const found: StoredRecord[] = [];
    const listed = new Set<string>();
    let position = query.after;
    while (found.length < query.limit) {
      position = this.#index.nextExpiring(name, position);
      if (!position || position.key > query.until) break;
      const record = await this.records.read(position.id);
      const real = record ? placeOf(record) : null;
      this.#index.learn(position.id, real);
      if (!record || real?.expires !== position.key || listed.has(position.id)) continue;
      listed.add(position.id);
      found.push(record);
    }
    return found;
  }

  /**
   * How many threads of the scope (of one owner) there are, from the index: only threads with a change in
   * flight (or cut short) are read. Undefined with `where`, which would read every thread of the group.
   */
  async count(query: CountQuery): Promise<number | undefined> {
    if (query.where !== undefined && Object.keys(query.where).length > 0) return undefined;
    await this.#ready();
    const { sure, maybe } = this.#index.members(groupName(query.scope, query.owner));
    let count = sure;
    for (const id of maybe) {
      const record = await this.records.read(id);
      const real = record ? placeOf(record) : null;
      this.#index.learn(id, real);
      if (real && (query.owner === undefined || real.owner === query.owner)) count++;
    }
    return count;
  }

  /**
   * After `store.erase`: rewrites every journal line and the snapshot so that no place of `owner`'s
   * remains for a thread that has no record of that owner any more (see `scrubJournal`). Threads the owner
   * still holds (made while the erasure ran) keep theirs. Other processes keep what they read in memory
   * until they close, and may write it into a later snapshot: erase with them closed, or erase again.
   */
  async forgetOwner(owner: string): Promise<void> {
    await this.#ready();
    const erased = async (id: string) => {
      const record = await this.records.read(id);
      return !record || placeOf(record).owner !== owner;
    };
    await scrubJournal(this.journal.path, owner, erased);
    let changed = false;
    for (const [id, places] of [...this.#index.entries()]) {
      if (!places.some((place) => place?.owner === owner) || !(await erased(id))) continue;
      this.#index.set(
        id,
        places.map((place) => (place?.owner === owner ? null : place)),
      );
      changed = true;
    }
    const stored = this.journal.readSnapshot();
    const snapshotNames = stored?.threads.some(([, places]) =>
      places.some((place) => place?.owner === owner),
    );
    if (changed || snapshotNames) await this.#writeSnapshot();
  }

  close(): void {
    this.journal.close();
  }

  /** Loads the catalogue once, then reads the journal's new lines. */
  async #ready(): Promise<void> {
    this.#loading ??= this.#load().catch((error: unknown) => {
      this.#loading = undefined;
      throw error;
    });
    await this.#loading;
    this.#catchUp();
    if (this.#offset - this.#snapshotOffset > Math.max(SNAPSHOT_AFTER_BYTES, this.#snapshotBytes)) {
      await this.#writeSnapshot();
    }
  }

  /**
   * From the snapshot of this boot, or else from the records: a store written before the catalogue
   * existed, or one whose machine restarted since (its journal's last lines may be lost). The journal's
   * lines of this boot are read after either (`#catchUp`): a thread's last line names where it may be.
   */
  async #load(): Promise<void> {
    const snapshot = this.journal.readSnapshot();
    if (snapshot && snapshot.boot === currentBoot() && snapshot.offset <= this.journal.size()) {
      for (const [id, places] of snapshot.threads) this.#index.set(id, places);
      this.#offset = snapshot.offset;
      this.#snapshotOffset = snapshot.offset;
      return;
    }
    const ids = await this.records.ids();
    for (let from = 0; from < ids.length; from += REBUILD_BATCH) {
      const batch = ids.slice(from, from + REBUILD_BATCH);
      const records = await Promise.all(batch.map((id) => this.records.read(id)));
      for (const record of records) if (record) this.#index.set(record.id, [placeOf(record)]);
    }
    this.#offset = 0;
    this.#catchUp();
    await this.#writeSnapshot();
  }

  #catchUp(): void {
    const { lines, end } = this.journal.read(this.#offset);
    const boot = currentBoot();
    // Lines of an earlier boot are older than the records the catalogue was rebuilt from in this one.
    for (const line of lines) if (line.boot === boot) this.#index.set(line.id, line.places);
    this.#offset = end;
  }

  async #writeSnapshot(): Promise<void> {
    this.#snapshotOffset = this.#offset;
    this.#snapshotBytes = await this.journal.writeSnapshot({
      boot: currentBoot(),
      offset: this.#offset,
      threads: [...this.#index.entries()],
    });
  }
}
