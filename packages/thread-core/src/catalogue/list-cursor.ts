import { createHash } from "node:crypto";
import { InvalidListOptionsError, quoteUntrusted } from "../errors.js";
import { canonicalJson } from "../json.js";
import type { CatalogueQuery, ListPosition } from "../spec/log-driver.js";

/** The cursor format's version: a cursor of another is refused, never read as a position it is not. */
const CURSOR_VERSION = 1;
/** Hex digits of each digest a cursor carries. */
const DIGEST_LENGTH = 16;

/**
 * A keyset cursor: the position after which the next page starts, bound to the query it came from.
 * It is plain base64url JSON, `[version, digest of the query, key, id, until?, check]`. The query digest
 * makes a cursor given with other options (another owner, order or filter) a typed error instead of a
 * page of the wrong listing; the check digest over the rest makes an edited cursor one too. Neither is a
 * secret, so a cursor forged with both recomputed is only a position: it gives the page after that
 * position of the caller's own query, scoped as the store is, never another scope's or owner's threads.
 */
export function encodeCursor(query: CatalogueQuery, position: ListPosition): string {
  const body = [CURSOR_VERSION, queryDigest(query), position.key, position.id, query.until ?? null];
  return Buffer.from(JSON.stringify([...body, digest(JSON.stringify(body))]), "utf8").toString("base64url");
}

/** The position and bound a cursor of `query` holds; `InvalidListOptionsError` for anything else. */
export function decodeCursor(
  cursor: unknown,
  query: CatalogueQuery,
): Pick<CatalogueQuery, "after" | "until"> {
  const body = parse(cursor);
  const [version, queryHash, key, id, until, check] = body ?? [];
  const valid =
    body !== undefined &&
    body.length === 6 &&
    version === CURSOR_VERSION &&
    typeof queryHash === "string" &&
    typeof key === "string" &&
    typeof id === "string" &&
    id.length > 0 &&
    (until === null || typeof until === "string") &&
    check === digest(JSON.stringify(body.slice(0, 5)));
  if (!valid) {
    throw new InvalidListOptionsError(
      "cursor",
      `${quoteUntrusted(cursor)} is not a cursor list() returned; pass a page's cursor as it came, or leave it out to start at the first page.`,
    );
  }
  if (queryHash !== queryDigest(query)) {
    throw new InvalidListOptionsError(
      "cursor",
      "the cursor belongs to a listing with other options; give the owner, where, order, direction and prefix of the listing it came from, or leave it out to start again.",
    );
  }
  return {
    after: { key: key as string, id: id as string },
    ...(until === null ? {} : { until: until as string }),
  };
}

function parse(cursor: unknown): unknown[] | undefined {
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > 4096) return undefined;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  // base64url decoding skips what it does not know: only the cursor's own spelling is one.
  if (Buffer.from(text, "utf8").toString("base64url") !== cursor) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function queryDigest(query: CatalogueQuery): string {
  return digest(
    canonicalJson({
      owner: query.owner ?? null,
      where: query.where ?? null,
      prefix: query.prefix ?? null,
      order: query.order,
      direction: query.direction,
    }),
  );
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, DIGEST_LENGTH);
}
