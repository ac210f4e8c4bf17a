import { createHash, randomBytes } from "node:crypto";
import { SkeinError } from "@skein/thread-core";

/** Ids made of these characters (and short enough) appear in key names as they are, for readable keys. */
const READABLE_TAG = /^[A-Za-z0-9_.-]{1,64}$/;
const READABLE_NAME = /^[A-Za-z0-9_.~=#-]{1,128}$/;
/**
 * A segment id that `newSegmentId` made ends in `<thread tag>~<random>`, possibly after a scope prefix
 * that `ScopedLogDriver` adds. Such a segment is placed in the slot of the tag it names: its thread's.
 */
const THREAD_SEGMENT = /([=#][A-Za-z0-9_.-]{1,64})~[A-Za-z0-9_-]{22}$/;

/** The four keys that hold one segment. */
export interface SegmentKeys {
  /** Hash: base, start, createdAt, refs (reference count) and live (set while it is a thread's head). */
  info: string;
  /** List: the segment's own messages as compact JSON, oldest first. */
  messages: string;
  /** Hash: message id → own offset, for duplicate checks and `locate`. */
  ids: string;
  /** List: own offsets of the segment's system messages, ascending. */
  system: string;
}

/** The keys of one scope's catalogue (`store.list` by owner and order): one slot per scope. */
export interface CatalogueKeys {
  /** Hash: record id (sortable) → its entry, JSON `[revision, owner or "", updated key, created key(, expiry key)]`. */
  entries: string;
  /** Sorted set, every score 0: the entries' positions, as members ordered by their bytes. */
  order: string;
}

/** The keys that hold one thread's record. */
export interface RecordKeys {
  /** Hash: the record's fields (kind, id, type, revision, head, length, metadata, context, state, …). */
  record: string;
  /** List: the thread's history events as JSON, oldest first. */
  events: string;
}

/**
 * Where everything lives. Ids are untrusted, so every key is derived from an encoding of the id that
 * cannot contain `{` or `}`: the id itself when it is short and plain (`=support-42`), else `#` and its
 * SHA-256 (of the UTF-16 code units, so even lone surrogates stay distinct). The two forms never meet.
 *
 * ```
 * <prefix>:index                                  sorted set of record ids (one key, one slot)
 * <prefix>:{<thread tag>}:record                  hash: the record
 * <prefix>:{<thread tag>}:events                  list: history events
 * <prefix>:{<slot tag>}:segment:<name>:info       hash: segment info and reference count
 * <prefix>:{<slot tag>}:segment:<name>:messages   list: message JSON
 * <prefix>:{<slot tag>}:segment:<name>:ids        hash: message id → offset
 * <prefix>:{<slot tag>}:segment:<name>:system     list: offsets of system messages
 * <prefix>:{@<scope tag>}:catalogue:entries       hash: a scope's catalogue entries (catalogue-members.ts)
 * <prefix>:{@<scope tag>}:catalogue:order         sorted set: their positions by owner and order, and by
 *                                                 a thread's own expiresAt (the expiry index)
 * <prefix>:catalogue                              the catalogue's version, once built over older records
 * ```
 */
export class KeyLayout {
  readonly index: string;
  /** Set to the catalogue's version once every record written before it existed was indexed. */
  readonly catalogueVersion: string;
  /** Keys of recently used ids: every change to a thread names the same few, and a digest is not free. */
  readonly #records = new Map<string, RecordKeys>();
  readonly #segments = new Map<string, SegmentKeys>();

  constructor(readonly prefix: string) {
    assertKeyPrefix(prefix);
    this.index = `${prefix}:index`;
    this.catalogueVersion = `${prefix}:catalogue`;
  }

  /**
   * The catalogue of one scope (`""` for the unscoped store, else the scope's id prefix). `@` starts no
   * thread tag, so these keys never share a name with a thread's, and a scope's whole catalogue is in one
   * slot: every change to it is one script there.
   */
  catalogue(scope: string): CatalogueKeys {
    const base = `${this.prefix}:{@${scope === "" ? "" : digest(scope)}}:catalogue`;
    return { entries: `${base}:entries`, order: `${base}:order` };
  }

  record(threadId: string): RecordKeys {
    let keys = this.#records.get(threadId);
    if (!keys) {
      const base = `${this.prefix}:{${tagOf(threadId)}}`;
      keys = { record: `${base}:record`, events: `${base}:events` };
      remember(this.#records, threadId, keys);
    }
    return keys;
  }

  segment(segmentId: string): SegmentKeys {
    let keys = this.#segments.get(segmentId);
    if (!keys) {
      const slot = THREAD_SEGMENT.exec(segmentId)?.[1] ?? tagOf(segmentId);
      const base = `${this.prefix}:{${slot}}:segment:${nameOf(segmentId)}`;
      keys = {
        info: `${base}:info`,
        messages: `${base}:messages`,
        ids: `${base}:ids`,
        system: `${base}:system`,
      };
      remember(this.#segments, segmentId, keys);
    }
    return keys;
  }

  /** A fresh head segment id for `threadId`, in the thread's hash slot. */
  newSegmentId(threadId: string): string {
    return `${tagOf(threadId)}~${randomBytes(16).toString("base64url")}`;
  }
}

/** How many ids' keys a layout keeps; past that it starts over. */
const REMEMBERED_IDS = 10_000;

function remember<Keys>(cache: Map<string, Keys>, id: string, keys: Keys): void {
  if (cache.size >= REMEMBERED_IDS) cache.clear();
  cache.set(id, keys);
}

/** Every key of a segment, in the order the Lua scripts take them. */
export function segmentKeyList(keys: SegmentKeys): string[] {
  return [keys.info, keys.messages, keys.ids, keys.system];
}

/** The hash tag content for an id: never contains a brace, and distinct ids give distinct tags. */
export function tagOf(id: string): string {
  return READABLE_TAG.test(id) ? `=${id}` : `#${digest(id)}`;
}

function nameOf(id: string): string {
  return READABLE_NAME.test(id) ? `=${id}` : `#${digest(id)}`;
}

function digest(text: string): string {
  return createHash("sha256").update(text, "utf16le").digest("base64url");
}

/** Throws unless `prefix` can start a key without breaking hash tags. */
function assertKeyPrefix(prefix: string): void {
  if (prefix.length === 0 || /[{}]/.test(prefix)) {
    throw new SkeinError(`Key prefix ${JSON.stringify(prefix)} must be non-empty and hold no "{" or "}".`, {
      source: "adapter-redis",
    });
  }
}
