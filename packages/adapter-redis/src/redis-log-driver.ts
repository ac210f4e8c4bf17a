import {
  ConcurrencyError,
  type JsonObject,
  type Message,
  SkeinError,
  StoreUnavailableError,
  ThreadExistsError,
  ThreadNotFoundError,
} from "@skein/thread-core";
import {
  type CatalogueQuery,
  type CommitResult,
  type CountQuery,
  type ExpiryQuery,
  eventSegments,
  importConflicts,
  type LogChange,
  type LogDriver,
  type LogRecord,
  type MessageRewrite,
  messageConflict,
  type RecordRewrite,
  type RecordSummary,
  type SegmentInfo,
  SegmentInfoCache,
  type StateRecord,
  type StoredRecord,
} from "@skein/thread-core/driver";
import { entryArguments } from "./catalogue-members.js";
import { commitRefusal, importRefusal, stateRefusal } from "./driver-refusals.js";
import { KeyLayout, segmentKeyList } from "./key-layout.js";
import { committedRecord, decodeRecord, hashFields } from "./record-codec.js";
import { RecordIndex } from "./record-index.js";
import { RedisCatalogue } from "./redis-catalogue.js";
import type { RedisConnection } from "./redis-connection.js";
import { RedisExpiryIndex } from "./redis-expiry-index.js";
import { ReplyWakeups } from "./reply-wakeups.js";
import { AncestorRetention, ancestorSeconds } from "./retention.js";
import { commitArguments, createLogArguments, importArguments, referencesTaken } from "./script-arguments.js";
import { COMMIT } from "./scripts/commit.js";
import { CREATE_LOG } from "./scripts/create-log.js";
import { DELETE_RECORD } from "./scripts/delete-record.js";
import { IMPORT_SEGMENT } from "./scripts/import-segment.js";
import { PUT_STATE } from "./scripts/put-state.js";
import { READ_RECORD } from "./scripts/read-record.js";
import { REWRITE_MESSAGES } from "./scripts/rewrite-messages.js";
import { REWRITE_RECORD } from "./scripts/rewrite-record.js";
import { SegmentReader } from "./segment-reader.js";
import { SegmentReferences } from "./segment-references.js";
import { fromSortableText, toSortableText } from "./sortable-text.js";

const source = { source: "adapter-redis" };
/** How often `delete` re-reads a record whose head moved under it before giving up. */
const DELETE_ATTEMPTS = 50;

export interface RedisLogDriverOptions {
  connection: RedisConnection;
  /** Prepended to every key. @default "skein" */
  prefix?: string;
  /** Expiry of a thread's keys, refreshed on every write. @default undefined (nothing expires) */
  ttlSeconds?: number;
}

/**
 * Local thread logs in Redis or Redis Cluster. Every change to a thread is one Lua script on the
 * thread's hash slot; see the README for the key layout and why it stays correct on Cluster.
 */
export class RedisLogDriver implements LogDriver {
  readonly specificationVersion = "v1";
  readonly source = "adapter-redis";
  readonly nativeType = "redis";
  readonly connection: RedisConnection;
  readonly layout: KeyLayout;
  readonly ttlSeconds: number;
  readonly #references: SegmentReferences;
  readonly #index: RecordIndex;
  readonly #infos: SegmentInfoCache;
  readonly #retention: AncestorRetention | undefined;
  readonly #reader: SegmentReader;
  readonly #catalogue: RedisCatalogue;
  readonly #expiry: RedisExpiryIndex;
  readonly #wakeups: ReplyWakeups;

  constructor(options: RedisLogDriverOptions) {
    this.connection = options.connection;
    this.layout = new KeyLayout(options.prefix ?? "skein");
    this.ttlSeconds = options.ttlSeconds ?? 0;
    this.#infos = new SegmentInfoCache((id) => this.segment(id));
    this.#references = new SegmentReferences(this.connection, this.layout, ancestorSeconds(this.ttlSeconds));
    this.#retention =
      this.ttlSeconds > 0
        ? new AncestorRetention(this.ttlSeconds, this.#references, (id) => this.#infos.get(id))
        : undefined;
    this.#index = new RecordIndex(this.connection, this.layout);
    this.#reader = new SegmentReader(this.connection, this.layout);
    this.#catalogue = new RedisCatalogue(this.connection, this.layout, this.#index);
    this.#expiry = new RedisExpiryIndex(this.#catalogue);
    this.#wakeups = new ReplyWakeups(this.connection, this.layout.prefix);
  }

  /** The catalogue's keys for a record's script on a single server; none on Cluster (another slot). */
  #catalogueKeys(id: string): string[] {
    if (!this.#catalogue.inline) return [];
    const keys = this.#catalogue.keysOf(id);
    return [keys.entries, keys.order];
  }

  async read(id: string, known?: LogRecord): Promise<StoredRecord | undefined> {
    const keys = this.layout.record(id);
    const expect = known?.id === id ? [String(known.revision), toSortableText(known.head)] : ["", ""];
    const reply = (await this.connection.script(
      READ_RECORD,
      [keys.record, keys.events],
      expect,
    )) as unknown[];
    if (reply.length === 0) return undefined;
    if (reply[0] === "same") return known;
    return decodeRecord(id, hashFields(reply[0]), reply[1] as string[]);
  }

  async createLog(record: LogRecord, head: SegmentInfo): Promise<void> {
    const keys = this.layout.record(record.id);
    const headInfo = this.layout.segment(head.id).info;
    this.#assertSameSlot(keys.record, headInfo, head.id);
    const taken = [...(head.base ? [head.base.segment] : []), ...record.events.flatMap(eventSegments)];
    if (taken.length > 0 && !(await this.#references.retain(taken))) {
      const fork = record.events.find((event) => event.kind === "fork");
      if (fork) throw new ThreadNotFoundError(fork.parentId, source);
      throw new SkeinError(
        `A segment thread ${JSON.stringify(record.id)} needs is gone from the store.`,
        source,
      );
    }
    await this.#index.add(record.id);
    // On Cluster the entry is placed first (only where none is), so the thread is never listed late.
    if (!this.#catalogue.inline) await this.#catalogue.placeFirst(record.id, entryArguments(record));
    const outcome = await this.connection.script(
      CREATE_LOG,
      [keys.record, keys.events, headInfo, ...this.#catalogueKeys(record.id)],
      createLogArguments(record, head, this.ttlSeconds),
    );
    if (outcome === "exists") {
      await this.#references.releaseQuietly(taken);
      if (!this.#catalogue.inline) await this.#afterWrite(() => this.#catalogue.repairEntry(record.id));
      throw new ThreadExistsError(record.id, source);
    }
    await this.#index.add(record.id);
    if (!this.#catalogue.inline) await this.#afterWrite(() => this.#catalogue.putRecord(record));
    this.#infos.remember(head);
    await this.#afterWrite(() => this.#retention?.refresh(record.id, head, record.events, true));
  }

  /** A landed reply's batches go in its commit's script (`LogChange.reclaim`), in the thread's slot. */
  readonly reclaimsInCommit = true;

  async commit(id: string, change: LogChange): Promise<CommitResult> {
    const keys = this.layout.record(id);
    const head = this.layout.segment(change.expectHead);
    const target = change.newHead && this.layout.segment(change.newHead.id);
    if (change.newHead && target) this.#assertSameSlot(keys.record, target.info, change.newHead.id);
    const append = change.append ?? [];
    // A reply's segment is made in its thread's slot (`newSegmentId`); one elsewhere is dropped after.
    const reclaim = change.reclaim === undefined ? undefined : this.layout.segment(change.reclaim);
    const reclaimInScript = reclaim !== undefined && this.#sameSlot(keys.record, reclaim.info);
    const scriptKeys = [
      keys.record,
      keys.events,
      ...segmentKeyList(head),
      ...(target ? segmentKeyList(target) : []),
      ...(reclaim && reclaimInScript ? segmentKeyList(reclaim) : []),
      ...this.#catalogueKeys(id),
    ];
    const now = new Date().toISOString();
    const taken = referencesTaken(change);
    if (taken.length > 0 && !(await this.#references.retain(taken)))
      throw new ThreadNotFoundError(id, source);
    // An error here leaves it unknown whether the script ran, so the references taken stay (a leak at worst).
    const reply = (await this.connection.script(
      COMMIT,
      scriptKeys,
      commitArguments(change, append, now, this.ttlSeconds, this.#catalogue.inline ? { id } : undefined),
    )) as unknown[];
    if (reply[0] !== "ok") {
      await this.#references.releaseQuietly(taken);
      if (reply[0] === "held") {
        // Nothing was written, so the caller's record (or the stored one) is still the thread's.
        const record = change.known ?? (await this.read(id));
        if (record?.kind !== "log") throw new ThreadNotFoundError(id, source);
        return {
          record,
          messages: [],
          held: (reply[1] as string[]).map((json) => JSON.parse(json) as Message),
        };
      }
      throw commitRefusal(id, change, reply);
    }
    const record = committedRecord(id, change, reply, now);
    if (change.newHead) this.#infos.remember(change.newHead);
    if (change.reclaim !== undefined && !reclaimInScript) {
      await this.#afterWrite(() => this.#references.drop(change.reclaim as string));
    }
    // On Cluster the catalogue's step follows in its own slot, before the commit returns.
    if (!this.#catalogue.inline && record.revision !== change.known?.revision) {
      await this.#afterWrite(() => this.#catalogue.putRecord(record));
    }
    // Housekeeping only when a segment was released or keys expire: a plain append waits for nothing more.
    if (typeof reply[4] !== "string" && !this.#retention) return { record, messages: append };
    await this.#afterWrite(async () => {
      await this.#references.releaseBase(reply[4]);
      const headInfo = this.#retention && (await this.#infos.get(record.head));
      const pointsChanged = Boolean(change.newHead || change.event);
      if (headInfo) await this.#retention?.refresh(id, headInfo, record.events, pointsChanged);
    });
    return { record, messages: append };
  }

  async putState(id: string, state: JsonObject, options: { ifRevision?: number } = {}): Promise<StateRecord> {
    const key = this.layout.record(id).record;
    const updatedAt = new Date().toISOString();
    await this.#index.add(id);
    const [, owner, updated, created] = entryArguments({ kind: "state", id, revision: 0, updatedAt, state });
    if (!this.#catalogue.inline) await this.#catalogue.placeFirst(id, ["0", owner, updated, created, ""]);
    const reply = (await this.connection.script(
      PUT_STATE,
      [key, ...this.#catalogueKeys(id)],
      [
        JSON.stringify(id),
        toSortableText(String(state.$type)),
        updatedAt,
        JSON.stringify(state),
        options.ifRevision === undefined ? "" : String(options.ifRevision),
        String(this.ttlSeconds),
        toSortableText(id),
        owner,
        updated,
        created,
      ],
    )) as unknown[];
    if (reply[0] !== "ok") {
      if (reply[0] === "concurrency" && Number(reply[1]) === 0) await this.#index.remove(id);
      if (!this.#catalogue.inline) await this.#afterWrite(() => this.#catalogue.repairEntry(id));
      throw stateRefusal(id, options.ifRevision, reply);
    }
    await this.#index.add(id);
    const stored: StateRecord = {
      kind: "state",
      id,
      revision: Number(reply[1]),
      updatedAt,
      state: JSON.parse(JSON.stringify(state)),
    };
    if (!this.#catalogue.inline) await this.#afterWrite(() => this.#catalogue.putRecord(stored));
    return stored;
  }

  readonly fencedDelete = true;
  /** Kept in the record's hash beside `length`, set by the commit script on its every path. */
  readonly storesEnd = true;

  async delete(id: string, options: { ifRevision?: number } = {}): Promise<boolean> {
    const keys = this.layout.record(id);
    for (let attempt = 0; attempt < DELETE_ATTEMPTS; attempt++) {
      const [kind, head] = (await this.connection.command(
        keys.record,
        ["HMGET", keys.record, "kind", "head"],
        true,
      )) as [string | null, string | null];
      if (kind === null) return false;
      const headKeys =
        head === null ? [keys.record, keys.record, keys.record, keys.record] : this.#headKeys(head);
      const reply = (await this.connection.script(
        DELETE_RECORD,
        [keys.record, keys.events, ...headKeys, ...this.#catalogueKeys(id)],
        [head ?? "", options.ifRevision === undefined ? "" : String(options.ifRevision), toSortableText(id)],
      )) as unknown[];
      if (reply[0] === "missing") return false;
      if (reply[0] === "moved") continue;
      if (reply[0] === "concurrency") {
        throw new ConcurrencyError(id, options.ifRevision as number, Number(reply[1]), source);
      }
      const events = (reply[1] as string[]).map((event) => JSON.parse(event));
      // The record is gone: what it pointed at is released after, so a failure here only leaks.
      await this.#afterWrite(() =>
        Promise.all([
          this.#references.release(events.flatMap(eventSegments)),
          this.#references.releaseBase(reply[2]),
          this.#index.remove(id),
          this.#catalogue.inline ? undefined : this.#catalogue.remove(id),
        ]),
      );
      return true;
    }
    throw new StoreUnavailableError(
      `Thread ${JSON.stringify(id)} kept changing while it was deleted; try again.`,
      source,
    );
  }

  list(options: { prefix?: string; after?: string; limit: number }): Promise<RecordSummary[]> {
    return this.#index.list(options);
  }

  /** A page of `store.list` from the catalogue (redis-catalogue.ts): O(log n + page) in every order. */
  catalogue(query: CatalogueQuery): Promise<StoredRecord[]> {
    return this.#catalogue.page(query);
  }

  /** A sweep's page of threads past their own `expiresAt` (redis-expiry-index.ts): O(log n + page). */
  expiring(query: ExpiryQuery): Promise<StoredRecord[]> {
    return this.#expiry.page(query);
  }

  /** `store.count` by scope and owner, O(log n); by metadata it is refused (undefined). */
  countCatalogue(query: CountQuery): Promise<number | undefined> {
    return this.#catalogue.count(query);
  }

  segment(id: string): Promise<SegmentInfo | undefined> {
    return this.#reader.info(id);
  }

  readSegment(id: string, from: number, to: number): Promise<Message[]> {
    return this.#reader.messages(id, from, to);
  }

  locate(id: string, messageId: string, before: number) {
    return this.#reader.locate(id, messageId, before);
  }

  systemOffsets(id: string, before: number): Promise<number[]> {
    return this.#reader.systemOffsets(id, before);
  }

  async importSegment(info: SegmentInfo, messages: Message[], from: number): Promise<void> {
    const keys = this.layout.segment(info.id);
    // A segment that continues none (a streamed reply's batches, the common import) takes no reference:
    // one script makes it or appends at its end, and only an import over messages it holds (a retry) is
    // compared first, below.
    if (info.base === null) {
      const reply = (await this.connection.script(
        IMPORT_SEGMENT,
        segmentKeyList(keys),
        importArguments(info, messages, from, this.ttlSeconds, false),
      )) as unknown[];
      if (reply[0] === "ok") return;
      if (reply[0] !== "compare") throw importRefusal(info.id, from, messages, reply);
    }
    const exists = (await this.connection.command(keys.info, ["EXISTS", keys.info], true)) === 1;
    // A segment's messages never change once written, so they can be compared before the script runs.
    if (exists) await this.#assertSameContent(info.id, messages, from);
    // A new segment holds a reference to its base, taken before the segment exists.
    const taken = !exists && info.base ? [info.base.segment] : [];
    if (taken.length > 0 && !(await this.#references.retain(taken))) {
      throw importConflicts(info.id, source.source).missingBase(info.base?.segment as string);
    }
    const reply = (await this.connection.script(
      IMPORT_SEGMENT,
      segmentKeyList(keys),
      importArguments(info, messages, from, this.ttlSeconds, true),
    )) as unknown[];
    if (reply[0] !== "ok") {
      await this.#references.releaseQuietly(taken);
      throw importRefusal(info.id, from, messages, reply);
    }
    // Another import created the segment first; it holds the base's reference.
    if (reply[1] === 0) await this.#references.release(taken);
  }

  newSegmentId(threadId: string): string {
    return this.layout.newSegmentId(threadId);
  }

  /** See `LogDriver.rewriteMessages`: one script per call, each message compared and set inside it. */
  async rewriteMessages(segment: string, rewrites: readonly MessageRewrite[]): Promise<boolean[]> {
    if (rewrites.length === 0) return [];
    const key = this.layout.segment(segment).messages;
    const args = rewrites.flatMap(({ offset, expected, replacement }) => [
      String(offset),
      JSON.stringify(expected),
      JSON.stringify(replacement),
    ]);
    const reply = (await this.connection.script(REWRITE_MESSAGES, [key], args)) as number[];
    return rewrites.map((_, index) => reply[index] === 1);
  }

  /** See `LogDriver.rewriteRecord`: one script, each field compared with what was read inside it. */
  async rewriteRecord(id: string, rewrite: RecordRewrite): Promise<boolean> {
    const keys = this.layout.record(id);
    const reply = await this.connection.script(
      REWRITE_RECORD,
      [keys.record, keys.events],
      [
        // "" leaves a field alone: no stored JSON is empty.
        rewrite.metadata ? JSON.stringify(rewrite.metadata.expected) : "",
        rewrite.metadata ? JSON.stringify(rewrite.metadata.replacement) : "",
        rewrite.context ? JSON.stringify(rewrite.context.expected) : "",
        rewrite.context ? JSON.stringify(rewrite.context.replacement) : "",
        rewrite.end ? (rewrite.end.expected === undefined ? "-" : `=${rewrite.end.expected}`) : "",
        rewrite.end?.replacement ?? "",
        ...rewrite.events.flatMap(({ index, expected, replacement }) => [
          String(index),
          JSON.stringify(expected),
          JSON.stringify(replacement),
        ]),
      ],
    );
    return reply === 1;
  }

  /** Where the segment holds an imported message's id already, it must hold that message: else `ConflictError`. */
  async #assertSameContent(segmentId: string, messages: Message[], from: number): Promise<void> {
    const stored = await this.#reader.messages(segmentId, from, from + messages.length);
    for (const [index, message] of stored.entries()) {
      const imported = messages[index] as Message;
      // Another id at this offset is the script's refusal ("other"), with its own words.
      if (message.id !== imported.id) continue;
      const conflict = messageConflict(message, imported, source.source);
      if (conflict) throw conflict;
    }
  }

  /** Checks that Redis answers, so a store opened on a wrong URL fails at once. */
  async ping(): Promise<void> {
    await this.connection.command(undefined, ["PING"]);
  }

  /** Reclaims a segment nothing references (a streamed reply's batches once the reply landed), as a delete would. */
  dropSegment(id: string): Promise<void> {
    return this.#references.drop(id);
  }

  /** Wakes followers of a streamed reply in every process: Redis pub/sub (see `ReplyWakeups`). */
  watch(segment: string, listener: () => void): () => void {
    return this.#wakeups.watch(segment, listener);
  }

  notify(segment: string): Promise<void> {
    return this.#wakeups.notify(segment);
  }

  async close(): Promise<void> {
    await this.#wakeups.close();
    await this.connection.close();
  }

  #headKeys(storedHead: string): string[] {
    return segmentKeyList(this.layout.segment(fromSortableText(storedHead)));
  }

  /** Whether one script can reach both keys: always on a single server, in one hash slot on Cluster. */
  #sameSlot(recordKey: string, segmentKey: string): boolean {
    return !this.connection.cluster || hashTag(recordKey) === hashTag(segmentKey);
  }

  /** On Cluster a script reaches one slot: a thread's head must be placed beside its record. */
  #assertSameSlot(recordKey: string, segmentKey: string, segmentId: string): void {
    if (!this.#sameSlot(recordKey, segmentKey)) {
      throw new SkeinError(
        `Head segment ${JSON.stringify(segmentId)} is not in its thread's hash slot; make head ids with newSegmentId().`,
        source,
      );
    }
  }

  /** Housekeeping after a change that happened: a lost connection now leaks at worst, so it is not an error. */
  async #afterWrite(work: () => Promise<unknown> | undefined): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!StoreUnavailableError.isInstance(error)) throw error;
    }
  }
}

function hashTag(key: string): string {
  return key.slice(key.indexOf("{"), key.indexOf("}") + 1);
}
