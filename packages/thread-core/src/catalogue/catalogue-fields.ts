import { InvalidThreadStateError } from "../errors.js";
import { isPlainObject } from "../json.js";
import { expiryValue } from "../lifecycle/retention-expiry.js";

/**
 * Where a local thread keeps its owner, title and `expiresAt` in its record: one reserved key of the record's context,
 * as local types keep their fields (`$fields`), so every store keeps them with the same atomic commits,
 * forks, scopes and exports as the rest of the thread, and stores written before owners existed read as
 * they are (no key: no owner, no title). The thread's `context` never shows it.
 */
export const CATALOGUE_KEY = "$catalogue";

/** The longest owner, in characters: an owner is an id (a user, a tenant member), with the same limits. */
export const MAX_OWNER_LENGTH = 256;
/** The longest title, in characters. */
export const MAX_TITLE_LENGTH = 1_000;

/** A thread's owner, title and expiry (an ISO time), each absent when not set. */
export interface CatalogueFields {
  owner?: string;
  title?: string;
  expiresAt?: string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `value` is no owner (1–256 characters, no control characters), or undefined when it is one. */
export function ownerProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return "an owner is a string";
  const length = [...value].length;
  if (length === 0) return "an owner is not empty";
  if (length > MAX_OWNER_LENGTH)
    return `an owner has at most ${MAX_OWNER_LENGTH} characters, this one ${length}`;
  if (CONTROL.test(value)) return "an owner has no control characters";
  if (LONE_SURROGATE.test(value)) return "an owner has no lone surrogates";
  return undefined;
}

/** Why `value` is no title (a string of at most 1,000 characters, no lone surrogates), or undefined. */
export function titleProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return "a title is a string";
  const length = [...value].length;
  if (length > MAX_TITLE_LENGTH)
    return `a title has at most ${MAX_TITLE_LENGTH} characters, this one ${length}`;
  if (LONE_SURROGATE.test(value)) return "a title has no lone surrogates";
  return undefined;
}

/** The owner and title a record's context stores; anything malformed there reads as absent. */
export function catalogueOf(context: Readonly<Record<string, unknown>>): CatalogueFields {
  const stored = context[CATALOGUE_KEY];
  if (!isPlainObject(stored)) return {};
  return {
    ...(typeof stored.owner === "string" ? { owner: stored.owner } : {}),
    ...(typeof stored.title === "string" ? { title: stored.title } : {}),
    ...(typeof stored.expiresAt === "string" ? { expiresAt: stored.expiresAt } : {}),
  };
}

/** `context` storing `fields` under the reserved key (none when both are absent). */
export function withCatalogue(
  context: Record<string, unknown>,
  fields: CatalogueFields,
): Record<string, unknown> {
  const { [CATALOGUE_KEY]: _previous, ...rest } = context;
  if (fields.owner === undefined && fields.title === undefined && fields.expiresAt === undefined) return rest;
  return { ...rest, [CATALOGUE_KEY]: { ...fields } };
}

/**
 * The fields after a change: a string sets, `null` clears, `undefined` keeps. Each given value is checked
 * (`InvalidThreadStateError` naming the field), so nothing is written for a bad one.
 */
export function changedCatalogue(
  current: CatalogueFields,
  change: { owner?: string | null | undefined; title?: string | null | undefined; expiresAt?: unknown },
): CatalogueFields {
  const next: CatalogueFields = { ...current };
  const expiresAt = expiryValue(change.expiresAt);
  if (expiresAt === null) delete next.expiresAt;
  else if (expiresAt !== undefined) next.expiresAt = expiresAt;
  for (const field of ["owner", "title"] as const) {
    const value = change[field];
    if (value === undefined) continue;
    if (value === null) {
      delete next[field];
      continue;
    }
    const problem = field === "owner" ? ownerProblem(value) : titleProblem(value);
    if (problem) throw new InvalidThreadStateError(`${problem}; give one, or null to clear it`, [field]);
    next[field] = value;
  }
  return next;
}

/** Refuses a context that names the reserved key: only a thread's own owner and title are stored there. */
export function assertNoCatalogueKey(context: Record<string, unknown>): void {
  if (Object.hasOwn(context, CATALOGUE_KEY)) {
    throw new InvalidThreadStateError(
      `the context key ${JSON.stringify(CATALOGUE_KEY)} is reserved for a thread's owner and title; give the context state another name, and the owner and title as options`,
      ["context", CATALOGUE_KEY],
    );
  }
}
