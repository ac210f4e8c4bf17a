import { isPlainObject } from "../json.js";
import type { StoredRecord } from "../local/log-driver.js";
import type { ListOrder, ThreadSummary } from "../spec/thread-store.js";
import { CATALOGUE_KEY, catalogueOf, ownerProblem } from "./catalogue-fields.js";

/**
 * A stored record as `store.list` shows it. A local thread's owner and title are its record's; a saved
 * state's (a remote thread's) are its top-level `owner` and `title`, when the state carries them.
 */
export function catalogueEntry(record: StoredRecord): ThreadSummary {
  if (record.kind === "log") {
    const { owner, title, expiresAt } = catalogueOf(record.context);
    return {
      id: record.id,
      type: record.type,
      ...(owner === undefined ? {} : { owner }),
      ...(title === undefined ? {} : { title }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      messageCount: record.length,
      metadata: record.metadata,
    };
  }
  const state = record.state;
  return {
    id: record.id,
    type: String(state.$type),
    ...(ownerProblem(state.owner) === undefined ? { owner: state.owner as string } : {}),
    ...(typeof state.title === "string" ? { title: state.title } : {}),
    ...(typeof state.createdAt === "string" ? { createdAt: state.createdAt } : {}),
    updatedAt: record.updatedAt,
    metadata: isPlainObject(state.metadata) ? state.metadata : {},
  };
}

/**
 * Whether `catalogueEntry(record).owner` is `owner` (a valid owner), without building the entry: an
 * erasure asks it of every record of the store.
 */
export function ownedBy(record: StoredRecord, owner: string): boolean {
  if (record.kind === "state") return record.state.owner === owner;
  const stored = record.context[CATALOGUE_KEY];
  return isPlainObject(stored) && stored.owner === owner;
}

/**
 * The key a record sorts by in `order`, before its id: the timestamp as stored (skein writes them all with
 * `toISOString`, which sorts as text), "" in id order and for a state without `createdAt` (before every
 * time). Kept as stored, not reparsed, so every store (a database index included) sorts by the same text.
 */
export function orderKey(
  entry: Pick<ThreadSummary, "id" | "createdAt" | "updatedAt">,
  order: ListOrder,
): string {
  if (order === "id") return "";
  return (order === "updated" ? entry.updatedAt : entry.createdAt) ?? "";
}
