import { CATALOGUE_KEY, catalogueOf } from "../catalogue/catalogue-fields.js";
import { InvalidThreadStateError } from "../errors.js";
import { cloneJson, isPlainObject, type JsonObject } from "../json.js";
import type { ThreadTypeRegistry } from "../spec/thread-store.js";
import { STREAMS_KEY } from "../streaming/stream-entries.js";
import type { ThreadState } from "../thread-type.js";
import type { LogRecord } from "./log-driver.js";

/**
 * Where a local thread of your own type (`local: true`) keeps its typed fields in its record: one reserved
 * key of the record's context, `{ $v, …fields }`, so every store keeps them with the same atomic commits,
 * forks and exports as the rest of the thread. The thread's `context` never shows it.
 */
export const FIELDS_KEY = "$fields";

/** Refuses a context that names the fields key: only a local type's own fields are stored there. */
export function assertNoFieldsKey(context: Record<string, unknown>): void {
  if (Object.hasOwn(context, FIELDS_KEY)) {
    throw new InvalidThreadStateError(
      `the context key ${JSON.stringify(FIELDS_KEY)} is reserved for a local thread type's fields; give the context state another name`,
      ["context", FIELDS_KEY],
    );
  }
}

/** The keys every local thread's JSON has; the others are a local type's own fields. */
const THREAD_KEYS = new Set([
  "$type",
  "$v",
  "id",
  "createdAt",
  "updatedAt",
  "metadata",
  "context",
  "revision",
  "end",
  "segments",
  "events",
  "owner",
  "title",
  "expiresAt",
]);

/** A state's own fields: what its type declares beyond the keys of every local thread. */
export function ownFields(state: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) if (!THREAD_KEYS.has(key)) fields[key] = value;
  return fields;
}

/**
 * The context as stored, without the fields key, the owner and title (`CATALOGUE_KEY`) and the replies that
 * stream (`STREAMS_KEY`: a thread's JSON and its exports never carry them).
 */
export function publicContext(context: Record<string, unknown>): Record<string, unknown> {
  if (!(FIELDS_KEY in context) && !(CATALOGUE_KEY in context) && !(STREAMS_KEY in context)) return context;
  const { [FIELDS_KEY]: _fields, [CATALOGUE_KEY]: _catalogue, [STREAMS_KEY]: _streams, ...rest } = context;
  return rest;
}

/** Caches by registry, then by the stored object: stores over one driver may have different registries. */
function cacheOf<Value>(
  caches: WeakMap<ThreadTypeRegistry, WeakMap<object, Value>>,
  registry: ThreadTypeRegistry,
) {
  let cache = caches.get(registry);
  if (!cache) {
    cache = new WeakMap();
    caches.set(registry, cache);
  }
  return cache;
}

const parsedContexts = new WeakMap<ThreadTypeRegistry, WeakMap<object, Record<string, unknown>>>();

/**
 * The context as the application sees it: without the fields key, its nested states (context providers'
 * states) validated and migrated through the registry, those of types not registered here kept as stored.
 * Parsed once per record read.
 */
export function parsedContext(registry: ThreadTypeRegistry, record: LogRecord): Record<string, unknown> {
  const cache = cacheOf(parsedContexts, registry);
  let parsed = cache.get(record.context);
  if (!parsed) {
    parsed = frozenCopy(parseContext(registry, publicContext(record.context)));
    cache.set(record.context, parsed);
  }
  return parsed;
}

/** `context` with its nested states validated and migrated; unknown ones kept as they are. */
export function parseContext(
  registry: ThreadTypeRegistry,
  context: Record<string, unknown>,
): Record<string, unknown> {
  // Most contexts hold no nested state: skip the walk for them.
  if (!JSON.stringify(context).includes('"$type"')) return context;
  return registry.parseContext(context, { unknown: "preserve" });
}

/**
 * A deep-frozen copy: what the caches above hand out is shared by every read of one record, so a caller
 * changing it (`thread.fields.subject = …`) would change the thread for everyone and break its next update.
 */
function frozenCopy<Value extends Record<string, unknown>>(value: Value): Value {
  const copy = cloneJson(value) as Value;
  const pending: object[] = [copy];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    Object.freeze(next);
    for (const child of Object.values(next)) {
      if (typeof child === "object" && child !== null) pending.push(child);
    }
  }
  return copy;
}

/** The typed fields a record stores, with the version they were written at, or undefined for a plain thread. */
export function storedFields(record: Pick<LogRecord, "context">): JsonObject | undefined {
  const stored = record.context[FIELDS_KEY];
  return isPlainObject(stored) ? (stored as JsonObject) : undefined;
}

export interface LocalFields {
  /** The version of the fields: the type's current one once migrated. */
  version: number;
  fields: Record<string, unknown>;
}

const readFieldsCache = new WeakMap<ThreadTypeRegistry, WeakMap<object, LocalFields>>();

/**
 * A record's fields, validated and migrated to the registered version of its type. A type not registered
 * here gives the fields as stored, at their stored version, so they travel unchanged.
 */
export function readFields(registry: ThreadTypeRegistry, record: LogRecord): LocalFields | undefined {
  const stored = storedFields(record);
  if (!stored) return undefined;
  const cache = cacheOf(readFieldsCache, registry);
  const cached = cache.get(stored);
  if (cached) return cached;
  const { $v, ...fields } = stored;
  const version = typeof $v === "number" ? $v : 1;
  const type = registry.get(record.type);
  let result: LocalFields = { version, fields: frozenCopy(fields) };
  if (type?.local) {
    const parsed = registry.parse(fieldsState(record, fields, version), {
      unknown: "preserve",
    }) as ThreadState;
    result = { version: type.version, fields: frozenCopy(ownFields(parsed)) };
  }
  cache.set(stored, result);
  return result;
}

/** The state a local type's schema checks: the thread's own keys and the fields (its context apart). */
export function fieldsState(
  record: Pick<LogRecord, "type" | "id" | "createdAt" | "metadata">,
  fields: Record<string, unknown>,
  version: number,
): Record<string, unknown> {
  return {
    ...fields,
    $type: record.type,
    $v: version,
    id: record.id,
    createdAt: record.createdAt,
    metadata: record.metadata,
    context: {},
  };
}

/**
 * A local thread's JSON as read through the registry: its context's nested states migrated, and for a
 * local type of your own, its type, version and fields in place of the fields key.
 */
export function withLocalFields(
  state: ThreadState,
  record: LogRecord,
  registry: ThreadTypeRegistry,
): ThreadState {
  const context = parsedContext(registry, record);
  const read = readFields(registry, record);
  const { owner, title, expiresAt } = catalogueOf(record.context);
  const plain = owner === undefined && title === undefined && expiresAt === undefined;
  if (!read && context === record.context && plain) return state;
  return {
    ...state,
    ...(read ? { ...cloneJson(read.fields), $type: record.type, $v: read.version } : {}),
    ...(owner === undefined ? {} : { owner }),
    ...(title === undefined ? {} : { title }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    context: cloneJson(context),
  } as ThreadState;
}
