import { catalogueOf } from "../catalogue/catalogue-fields.js";
import type { StoredRecord } from "../local/log-driver.js";
import { SCOPE_SEPARATOR } from "../local/scoped-log-driver.js";
import type { ExpiryQuery } from "../spec/log-driver.js";
import { SortedPositions } from "./sorted-positions.js";

/**
 * The memory store's index by expiry (`LogDriver.expiring`): per scope, the log records that carry their
 * own `expiresAt`, ordered by it, so a sweep reads the expired ones and stops at the first that is not.
 */
export class MemoryExpiryIndex {
  readonly #scopes = new Map<string, SortedPositions>();

  /** Indexes a record (new, or `previous` changed into it). */
  put(record: StoredRecord, previous?: StoredRecord): void {
    const before = previous && expiryKey(previous);
    const after = expiryKey(record);
    if (before === after) return;
    if (previous) this.remove(previous);
    if (after === undefined) return;
    const scope = scopeOf(record.id);
    let positions = this.#scopes.get(scope);
    if (!positions) {
      positions = new SortedPositions();
      this.#scopes.set(scope, positions);
    }
    positions.add({ key: after, id: record.id });
  }

  remove(record: StoredRecord): void {
    const key = expiryKey(record);
    if (key === undefined) return;
    const scope = scopeOf(record.id);
    const positions = this.#scopes.get(scope);
    positions?.remove({ key, id: record.id });
    if (positions?.size === 0) this.#scopes.delete(scope);
  }

  /** The records `query` asks for; `read` gives the stored record of an id. */
  page(query: ExpiryQuery, read: (id: string) => StoredRecord | undefined): StoredRecord[] {
    const found: StoredRecord[] = [];
    const positions = this.#scopes.get(query.scope);
    if (!positions) return found;
    for (const position of positions.walk("asc", query.after)) {
      if (found.length >= query.limit || position.key > query.until) break;
      const record = read(position.id);
      if (record) found.push(record);
    }
    return found;
  }
}

function expiryKey(record: StoredRecord): string | undefined {
  return record.kind === "log" ? catalogueOf(record.context).expiresAt : undefined;
}

/** The scope part of a stored id: up to its last scope separator (ids themselves hold none). */
function scopeOf(id: string): string {
  return id.slice(0, id.lastIndexOf(SCOPE_SEPARATOR) + 1);
}
