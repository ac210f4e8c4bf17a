import { InvalidListOptionsError, quoteUntrusted } from "../errors.js";
import { canonicalJson, findJsonProblem, isPlainObject, type JsonObject } from "../json.js";
import { describeGiven } from "../option-value.js";
import type { CatalogueQuery, ListPosition } from "../spec/log-driver.js";
import type { CountOptions, ListOptions, ListOrder, ThreadSummary } from "../spec/thread-store.js";
import { MAX_LIST_LIMIT } from "../store/store.js";
import { ownerProblem } from "./catalogue-fields.js";
import { decodeCursor } from "./list-cursor.js";

// The query types are the driver contract's (spec/log-driver.ts); the checks and comparisons live here.
export type { CatalogueQuery, CountQuery, ListPosition } from "../spec/log-driver.js";

const ORDERS: readonly ListOrder[] = ["id", "updated", "created"];

/** `store.list` options, checked: every bad one is an `InvalidListOptionsError` before anything is read. */
export function listQuery(options: ListOptions): CatalogueQuery {
  if (!isPlainObject(options as unknown)) {
    throw new InvalidListOptionsError(
      "limit",
      `the options are ${describeGiven(options)}; give an object, as { owner, limit }.`,
    );
  }
  const limit = options.limit ?? 100;
  // Capped, so no backend is asked for a page it cannot count (Redis refuses 1e300 with a plain error).
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new InvalidListOptionsError(
      "limit",
      `${quoteUntrusted(limit)} is not a positive integer up to ${MAX_LIST_LIMIT}; give 1 to ${MAX_LIST_LIMIT} and page on with the cursor, or leave it out for 100.`,
    );
  }
  const order = options.order ?? "id";
  if (!ORDERS.includes(order)) {
    throw new InvalidListOptionsError(
      "order",
      `${describeGiven(order)} is no order; give "updated", "created" or "id".`,
    );
  }
  const direction = options.direction ?? (order === "id" ? "asc" : "desc");
  if (direction !== "asc" && direction !== "desc") {
    throw new InvalidListOptionsError(
      "direction",
      `${describeGiven(direction)} is no direction; give "desc" or "asc".`,
    );
  }
  if (options.prefix !== undefined && typeof options.prefix !== "string") {
    throw new InvalidListOptionsError(
      "where",
      `the prefix is ${describeGiven(options.prefix)}; give a string.`,
    );
  }
  const query: CatalogueQuery = {
    scope: "",
    ...countQuery(options),
    ...(options.prefix ? { prefix: options.prefix } : {}),
    order,
    direction,
    limit,
  };
  if (options.cursor !== undefined) Object.assign(query, decodeCursor(options.cursor, query));
  return query;
}

/** `store.count` options, checked as `list` checks them. */
export function countQuery(options: CountOptions): Pick<CatalogueQuery, "owner" | "where"> {
  if (!isPlainObject(options as unknown)) {
    throw new InvalidListOptionsError(
      "owner",
      `the options are ${describeGiven(options)}; give an object, as { owner }.`,
    );
  }
  const query: Pick<CatalogueQuery, "owner" | "where"> = {};
  if (options.owner !== undefined) {
    const problem = ownerProblem(options.owner);
    if (problem) {
      throw new InvalidListOptionsError("owner", `${describeGiven(options.owner)}: ${problem}.`);
    }
    query.owner = options.owner;
  }
  if (options.where !== undefined) query.where = whereOption(options.where);
  return query;
}

function whereOption(where: unknown): JsonObject {
  if (!isPlainObject(where)) {
    throw new InvalidListOptionsError(
      "where",
      `${describeGiven(where)} is no object of metadata keys and values; give one, as { agent: "planner" }.`,
    );
  }
  const checked: JsonObject = {};
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    const problem = findJsonProblem(value);
    if (problem) {
      throw new InvalidListOptionsError(
        "where",
        `the value of ${quoteUntrusted(key)} is not JSON (${problem.detail}); give strings, numbers, booleans, null, arrays or objects.`,
      );
    }
    checked[key] = value as JsonObject[string];
  }
  return checked;
}

/** Whether `metadata` holds every key of `where` with an equal JSON value (key order aside). */
export function matchesWhere(metadata: Record<string, unknown>, where: JsonObject | undefined): boolean {
  if (!where) return true;
  for (const [key, value] of Object.entries(where)) {
    if (!Object.hasOwn(metadata, key)) return false;
    if (canonicalJson(metadata[key]) !== canonicalJson(value)) return false;
  }
  return true;
}

/** Whether a listed entry passes the query's filters (owner, where, prefix, `until`). */
export function matchesQuery(entry: ThreadSummary, key: string, query: CatalogueQuery): boolean {
  if (query.owner !== undefined && entry.owner !== query.owner) return false;
  if (query.prefix !== undefined && !entry.id.startsWith(query.prefix)) return false;
  if (query.until !== undefined && key > query.until) return false;
  return matchesWhere(entry.metadata, query.where);
}

/** Compares two positions as the listing orders them ascending: by key, then id, in code-unit order. */
export function comparePositions(a: ListPosition, b: ListPosition): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Whether `position` comes after the query's cursor in its direction (every position does without one). */
export function isAfterCursor(position: ListPosition, query: CatalogueQuery): boolean {
  if (!query.after) return true;
  const compared = comparePositions(position, query.after);
  return query.direction === "asc" ? compared > 0 : compared < 0;
}
