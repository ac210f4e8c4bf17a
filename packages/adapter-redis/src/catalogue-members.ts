import {
  type CatalogueQuery,
  catalogueEntry,
  catalogueOf,
  type StoredRecord,
} from "@skein/thread-core/driver";
import { fromSortableText, PAST_EVERY_CHARACTER, toSortableText } from "./sortable-text.js";

type ListOrder = CatalogueQuery["order"];

/**
 * How the catalogue orders records in one sorted set per scope, all scores 0, so Redis orders members by
 * their bytes and `ZRANGE … BYLEX` with `LIMIT` reads a page in O(log n + page). Each record has up to six
 * members, one per order in the scope's group (`*`) and in its owner's (`=<owner>`), and a seventh, in the
 * scope's group, when it carries its own `expiresAt` (the expiry index, expiry-range.ts):
 *
 * ```
 * <group> NUL i NUL <id>                      id order
 * <group> NUL u NUL <updated key> NUL 1 <id>  last change, then id
 * <group> NUL c NUL <created key> NUL 1 <id>  creation, then id
 * *       NUL e NUL <expiresAt> NUL 1 <id>    a local thread's own expiry, then id (the scope's group only)
 * ```
 *
 * Ids and keys are in sortable form (UTF-8 bytes in code-unit order, sortable-text.ts). Owners and ids hold
 * no NUL (a scope separator is 0x1f), so a group ends at its first NUL. A key may (a saved state's `createdAt` is any
 * text), so its NULs are written NUL 2: as NUL 1 ends the key and sorts below NUL 2 and every other
 * character, a key sorts before the keys it is a prefix of, as thread-core compares them.
 */
const NUL = "\u0000";
export const KEY_END = "\u0000\u0001";
const ESCAPED_NUL = "\u0000\u0002";

const ORDER_LETTER: Record<ListOrder, string> = { id: "i", updated: "u", created: "c" };

/**
 * A record's catalogue entry as the scripts take it: revision, owner ("" for none), its last-change and
 * creation keys encoded for members, and a local thread's own `expiresAt` encoded likewise ("" for none).
 */
export type CatalogueEntryArguments = [
  revision: string,
  owner: string,
  updated: string,
  created: string,
  expiry: string,
];

export function entryArguments(record: StoredRecord): CatalogueEntryArguments {
  const entry = catalogueEntry(record);
  return [
    String(record.revision),
    entry.owner ?? "",
    encodeKey(entry.updatedAt),
    encodeKey(entry.createdAt ?? ""),
    expiryArgument(record),
  ];
}

/** A record's own `expiresAt` as members hold it, "" when it has none (saved states never expire on their own). */
function expiryArgument(record: StoredRecord): string {
  const expiresAt = record.kind === "log" ? catalogueOf(record.context).expiresAt : undefined;
  return expiresAt === undefined ? "" : encodeKey(expiresAt);
}

/** A key (a timestamp as stored) as members hold it. */
export function encodeKey(key: string): string {
  return toSortableText(key).replaceAll(NUL, ESCAPED_NUL);
}

export function decodeKey(encoded: string): string {
  return fromSortableText(encoded.replaceAll(ESCAPED_NUL, NUL));
}

/** The start every member of one group and order shares. */
function groupStart(owner: string | undefined, order: ListOrder): string {
  return `${owner === undefined ? "*" : `=${owner}`}${NUL}${ORDER_LETTER[order]}${NUL}`;
}

/** A listed position: the record's key in the order ("" in id order) and its stored id. */
export interface MemberPosition {
  key: string;
  id: string;
}

/** What `ZRANGE … BYLEX` is asked for one page of `query`, and how its members read back. */
export class CatalogueRange {
  readonly #start: string;
  readonly #order: ListOrder;
  /** Ids in the scope's stored form must begin with this (scope + prefix) to be listed. */
  readonly idStart: string;
  readonly low: Buffer;
  readonly high: Buffer;

  constructor(query: CatalogueQuery) {
    this.#order = query.order;
    this.#start = groupStart(query.owner, query.order);
    this.idStart = query.scope + (query.prefix ?? "");
    // In id order a prefix narrows the range itself; in the other orders it filters (see the README).
    const from = this.#start + (query.order === "id" ? toSortableText(this.idStart) : "");
    let low = Buffer.from(`[${from}`);
    let high = Buffer.concat([Buffer.from(`[${from}`), PAST_EVERY_CHARACTER]);
    if (query.until !== undefined && query.order !== "id" && query.direction === "asc") {
      // Every id of a key at most `until`: an ascending walk by last change ends at the walk's start.
      high = Buffer.concat([
        Buffer.from(`[${this.#start}${encodeKey(query.until)}${KEY_END}`),
        PAST_EVERY_CHARACTER,
      ]);
    }
    if (query.after) {
      const after = Buffer.from(this.member(query.after));
      if (query.direction === "asc" && Buffer.compare(after, low.subarray(1)) >= 0) {
        low = Buffer.concat([Buffer.from("("), after]);
      }
      if (query.direction === "desc" && Buffer.compare(after, high.subarray(1)) < 0) {
        high = Buffer.concat([Buffer.from("("), after]);
      }
    }
    this.low = low;
    this.high = high;
  }

  /** The member of a position in this range's group and order. */
  member(position: MemberPosition): string {
    const id = toSortableText(position.id);
    return this.#order === "id"
      ? this.#start + id
      : `${this.#start}${encodeKey(position.key)}${KEY_END}${id}`;
  }

  /** The position a member of this range holds. */
  position(member: string): MemberPosition {
    const rest = member.slice(this.#start.length);
    if (this.#order === "id") return { key: "", id: fromSortableText(rest) };
    const end = rest.indexOf(KEY_END);
    return { key: decodeKey(rest.slice(0, end)), id: fromSortableText(rest.slice(end + KEY_END.length)) };
  }

  /** The range after `member`, in the walk's direction. */
  static after(range: { low: Buffer; high: Buffer }, member: Buffer, direction: "asc" | "desc") {
    const bound = Buffer.concat([Buffer.from("("), member]);
    return direction === "asc" ? { low: bound, high: range.high } : { low: range.low, high: bound };
  }
}

/** The range of every member of one group in id order: `ZLEXCOUNT` of it counts the group's records. */
export function countRange(owner: string | undefined): [Buffer, Buffer] {
  const start = Buffer.from(`[${groupStart(owner, "id")}`);
  return [start, Buffer.concat([start, PAST_EVERY_CHARACTER])];
}

/** The scope part of a stored id: up to its last scope separator (`ScopedLogDriver`'s), "" when unscoped. */
export function scopeOf(id: string): string {
  return id.slice(0, id.lastIndexOf(SCOPE_SEPARATOR) + 1);
}

/** thread-core's scope separator (a control character, in no id): scoped ids are `<sep><scope><sep><id>`. */
const SCOPE_SEPARATOR = "\u001f";
