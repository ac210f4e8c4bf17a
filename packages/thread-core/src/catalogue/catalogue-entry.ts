import { isPlainObject } from "../json.js";
import type { StoredRecord } from "../local/log-driver.js";
import type { ListOrder, ThreadSummary } from "../spec/thread-store.js";
import { catalogueOf, ownerProblem } from "./catalogue-fields.js";

/**
 * A stored record as `store.list` shows it. A local thread's owner and title are its record's; a saved
 * state's (a remote thread's) are its top-level `owner` and `title`, when the state carries them.
 */
export function catalogueEntry(record: StoredRecord): ThreadSummary {
  if (record.kind === "log") {
    const { owner, title } = catalogueOf(record.context);
    return {
      id: record.id,
      type: record.type,
      ...(owner === undefined ? {} : { owner }),
      ...(title === undefined ? {} : { title }),
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
 * The key a record sorts by in `order`, before its id: ISO-8601 timestamps written the same way sort as
 * text; a timestamp written another way is rewritten, and one that is no time (a state without
 * `createdAt`) sorts as "" (before every time).
 */
export function orderKey(
  entry: Pick<ThreadSummary, "id" | "createdAt" | "updatedAt">,
  order: ListOrder,
): string {
  if (order === "id") return "";
  const time = order === "updated" ? entry.updatedAt : entry.createdAt;
  return sortableTime(time);
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A timestamp as `toISOString` writes it, or "" when it is none. */
export function sortableTime(time: string | undefined): string {
  if (time === undefined) return "";
  if (ISO_UTC.test(time)) return time;
  const parsed = Date.parse(time);
  return Number.isNaN(parsed) ? "" : new Date(parsed).toISOString();
}
