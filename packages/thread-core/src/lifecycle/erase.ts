import { catalogueEntry, ownedBy } from "../catalogue/catalogue-entry.js";
import { catalogueOf, ownerProblem } from "../catalogue/catalogue-fields.js";
import { ownerShredding } from "../encryption/owner-shredding.js";
import { ConcurrencyError, InvalidOptionError, SkeinError, ThreadNotFoundError } from "../errors.js";
import { deleteRecord, type LogDriver, type StoredRecord } from "../local/log-driver.js";
import type { SegmentChains } from "../local/segment-chain.js";
import type { ErasedThreadRef, EraseOptions, ErasureReport, RemoteErasure } from "../spec/erasure.js";
import type { ThreadStore } from "../spec/thread-store.js";
import { ErasurePlanner, splitScopedId } from "./erase-plan.js";
import { MeasuredAhead } from "./measured-ahead.js";

/** What `eraseOwner` needs of the store it erases from. */
export interface ErasureHost {
  readonly driver: LogDriver;
  readonly chains: SegmentChains;
  /** The store a key's thread is bound through: the store itself, or the scope the key lives in. */
  storeFor(scopes: string[]): ThreadStore;
  /** Whether a saved state is bound through its type to be deleted (a service thread, a workflow). */
  bindsState(record: StoredRecord): boolean;
  /** Whether the store is a scope: the owner's keys then also seal their threads outside it. */
  readonly scoped: boolean;
}

/** How often a thread that keeps moving under the erasure is read again before giving up. */
const FENCE_ATTEMPTS = 20;

/**
 * `store.erase`: every record of `options.owner` in the store and its scopes, and (with
 * `includeSharedForks`) other owners' forks sharing their messages, deleted one by one with fenced deletes.
 * Shared forks go first, so an erasure stopped halfway still finds them from the owner's threads when run again.
 * Passes follow until one finds nothing new (see the loop).
 */
export async function eraseOwner(host: ErasureHost, options: EraseOptions): Promise<ErasureReport> {
  const owner = checkedOwner(options);
  const signal = options.signal;
  const planner = new ErasurePlanner(host.driver, owner);
  const report: ErasureReport = {
    owner,
    method: "deleted",
    threads: 0,
    messages: 0,
    bytes: 0,
    erased: [],
    keptShared: [],
    remote: [],
    ...(host.driver.erasureFollowUp ? { followUp: host.driver.erasureFollowUp } : {}),
  };
  /** Ids of the records erased, tried or kept: a later pass brings only what is new. */
  const handled = new Set<string>();
  let scanned = 0;
  let total = 0;
  // Pass after pass until one finds nothing new: a fork another owner made of the owner's threads while they
  // were being deleted is found by the next pass (then kept and listed, or erased), so the owner's key is
  // never shredded under it, and a thread the owner made meanwhile goes too.
  for (let pass = 0; ; pass++) {
    const plan = await planner.scan(signal);
    scanned += plan.scanned;
    const owned = plan.owned.filter((record) => !handled.has(record.id));
    const shared = plan.shared.filter((record) => !handled.has(record.id));
    if (pass > 0 && owned.length === 0 && shared.length === 0) break;
    for (const record of [...owned, ...shared]) handled.add(record.id);
    if (!options.includeSharedForks) report.keptShared.push(...shared.map((record) => reference(record)));
    const targets = options.includeSharedForks ? [...shared, ...owned] : owned;
    total += targets.length;
    const progress = (phase: "scanned" | "erased") =>
      options.onProgress?.({ phase, scanned, total, erased: report.threads });
    if (pass === 0 || targets.length > 0) progress("scanned");
    const sharedIds = new Set(shared.map((record) => record.id));
    const sizes = new MeasuredAhead(targets, (record) => measure(host, planner, record));
    for (const [index, target] of targets.entries()) {
      signal?.throwIfAborted();
      // A shared fork is another owner's: it goes whoever owns it; the owner's own threads only while theirs.
      const owning = sharedIds.has(target.id) ? undefined : owner;
      const erased = await eraseRecord(host, planner, target, owning, report, sizes.take(index));
      if (erased) progress("erased");
    }
    // Nothing deleted: nothing of the owner's went that a new fork could have raced with.
    if (targets.length === 0) break;
  }
  signal?.throwIfAborted();
  await host.driver.forgetOwner?.(owner);
  await shredAfterDeleting(host, options, report);
  return report;
}

/**
 * Destroys the owner's keys once their threads are gone, where the store can and nothing kept needs them.
 * After the deletes, so a run stopped before it leaves the keys and the next run (nothing left to delete)
 * destroys them; the destroy is asked again on every run, as a key store's destroy of a gone key is a no-op.
 */
async function shredAfterDeleting(host: ErasureHost, options: EraseOptions, report: ErasureReport) {
  const shredding = ownerShredding(host.driver);
  if (!shredding?.canDestroy) return;
  const kept =
    options.shredKey === false
      ? "shredKey: false"
      : host.scoped
        ? "the erasure ran in a scope, and the owner's keys also seal their threads elsewhere in the store; erase from the store's root to destroy them"
        : report.keptShared.length > 0
          ? `${report.keptShared.length} kept fork(s) of other owners share messages sealed with the owner's keys; erase with includeSharedForks: true to destroy them`
          : undefined;
  if (kept !== undefined) {
    report.keyKept = kept;
    return;
  }
  if (await shredding.shred(report.owner)) report.method = "deleted+crypto-shredded";
}

/** Refuses an erasure without a valid owner: there is no default that erases everything. */
function checkedOwner(options: EraseOptions | undefined): string {
  const owner = (options as Partial<EraseOptions> | undefined)?.owner;
  const problem = ownerProblem(owner);
  if (problem !== undefined) {
    throw new InvalidOptionError(
      "store.erase",
      "owner",
      "the owner whose threads to erase (1–256 characters, no control characters); there is no erase-everything default",
      owner === undefined
        ? "missing"
        : typeof owner === "string"
          ? JSON.stringify(owner.slice(0, 40))
          : typeof owner,
    );
  }
  return owner as string;
}

/**
 * Deletes one record, measured first. The delete is fenced by the revision it was measured at: a thread
 * that moved meanwhile is read and measured again, and one that changed owner (`owner` given) is left.
 */
async function eraseRecord(
  host: ErasureHost,
  planner: ErasurePlanner,
  first: StoredRecord,
  owner: string | undefined,
  report: ErasureReport,
  firstSize: Promise<number>,
): Promise<boolean> {
  let record: StoredRecord | undefined = first;
  for (let attempt = 0; attempt < FENCE_ATTEMPTS; attempt++) {
    if (!record) return false; // deleted meanwhile by someone else
    if (owner !== undefined && !ownedBy(record, owner)) return false;
    if (record.kind === "state" && host.bindsState(record)) return eraseBoundState(host, record, report);
    // The first attempt's size was measured ahead, of this very record; a record read again is measured anew.
    const size = await (record === first ? firstSize : measure(host, planner, record));
    try {
      const type = record.kind === "log" ? record.type : String(record.state.$type);
      const fence = { ifRevision: record.revision, known: record };
      if (!(await deleteRecord(host.driver, record.id, type, host.driver.fencedDelete ? fence : {}))) {
        return false;
      }
      report.threads += 1;
      report.messages += record.kind === "log" ? record.length : 0;
      report.bytes += size;
      report.erased.push(reference(record));
      return true;
    } catch (error) {
      if (!ConcurrencyError.isInstance(error)) throw error;
      record = await host.driver.read(record.id);
    }
  }
  throw new ConcurrencyError(first.id, first.revision, record?.revision ?? 0, {
    source: host.driver.source,
  });
}

/** A saved state of a type with behaviour: deleted through its thread, so a service deletes its copy. */
async function eraseBoundState(
  host: ErasureHost,
  record: Extract<StoredRecord, { kind: "state" }>,
  report: ErasureReport,
): Promise<boolean> {
  const { scopes, id } = splitScopedId(record.id);
  const entry: RemoteErasure = { ...reference(record), deleted: false };
  let thread: Awaited<ReturnType<ThreadStore["get"]>>;
  try {
    thread = await host.storeFor(scopes).get(id);
  } catch (error) {
    if (ThreadNotFoundError.isInstance(error)) return false;
    // Kept, so that a run with the adapter installed can still reach the service's copy.
    report.remote.push({ ...entry, reason: describe(error) });
    return false;
  }
  const size = byteLength(record.state);
  try {
    await thread.delete();
  } catch (error) {
    report.remote.push({ ...entry, reason: describe(error) });
    return false;
  }
  const remote = thread.capabilities.remoteDelete;
  if (remote !== undefined) {
    report.remote.push(
      remote
        ? { ...entry, deleted: true }
        : {
            ...entry,
            reason: `the ${entry.type} type cannot delete the service's copy; only the stored state was deleted`,
          },
    );
  }
  report.threads += 1;
  report.bytes += size;
  report.erased.push(reference(record));
  return true;
}

/**
 * The bytes a record counts for: a local thread's stored record (title, metadata, history, checkpoint labels,
 * operation ids) and every message its log reaches, each as JSON; a saved state's document. The messages
 * are read once, along the thread's chain: building the full export here cost half of the erasure's time.
 */
async function measure(host: ErasureHost, planner: ErasurePlanner, record: StoredRecord): Promise<number> {
  if (record.kind === "state") return byteLength(record.state);
  try {
    // The chain from the segment infos the plan read: each segment's info is read once per erasure.
    const ranges = await planner.chain(record.head, record.length);
    return byteLength(record) + byteLength(await host.chains.read(ranges, 0, record.length));
  } catch (error) {
    // A log cut short by an earlier crash (a segment already reclaimed) is erased all the same.
    if (SkeinError.isInstance(error)) return byteLength(record);
    throw error;
  }
}

function reference(record: StoredRecord): ErasedThreadRef {
  const { scopes, id } = splitScopedId(record.id);
  // A log's type and owner read straight from its record: the whole catalogue entry is built for nothing else.
  const entry =
    record.kind === "log" ? { type: record.type, ...catalogueOf(record.context) } : catalogueEntry(record);
  return { id, scopes, type: entry.type, ...(entry.owner === undefined ? {} : { owner: entry.owner }) };
}

/** UTF-8 bytes of `value` as JSON, counted without encoding it (an erasure measures every thread it erases). */
function byteLength(value: unknown): number {
  const text = JSON.stringify(value);
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit < 0xdc00 && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 2; // a pair: two units, four bytes
      index++;
    } else bytes += 2; // three bytes (JSON.stringify escapes a lone surrogate, so none is left here)
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit < 0xe000;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
