import { ownedBy } from "../catalogue/catalogue-entry.js";
import { SkeinError } from "../errors.js";
import type { LogDriver, LogRecord, SegmentInfo, StoredRecord } from "../local/log-driver.js";
import { eventPoints } from "../local/log-state.js";
import { SCOPE_SEPARATOR } from "../local/scoped-log-driver.js";
import { type ChainRange, chainRanges } from "../local/segment-chain.js";

/** How many records one step of the scan reads at once. */
const SCAN_BATCH = 200;

/** What an erasure will remove, found by reading the records of the store and its scopes. */
export interface ErasurePlan {
  /** Records whose owner is the one erased. */
  owned: StoredRecord[];
  /** Other owners' local threads whose history reaches a segment the owner's threads made. */
  shared: LogRecord[];
  /** Records read. */
  scanned: number;
}

/**
 * Finds the owner's records and the forks that share their messages, first in the whole store, then again
 * among the records new or changed since, so a fork made while the erasure ran is not missed.
 *
 * A fork is found by its segments, not by its `parentId`, so a fork of a fork is found too, and a parent the
 * owner forked from is not: the segments a thread made are those its history reaches minus those its own
 * fork point reaches.
 */
export class ErasurePlanner {
  readonly #segments: SegmentWalk;
  /** Segments the owner's threads made, over every pass. */
  readonly #made = new Set<string>();
  /** The last change of every record read, by id: a record listed with the same one is not read again. */
  readonly #seen = new Map<string, string>();
  /** Other owners' forks not found sharing yet, by id: a thread of the owner found later may be their parent. */
  readonly #forks = new Map<string, LogRecord>();

  constructor(
    readonly driver: LogDriver,
    readonly owner: string,
  ) {
    this.#segments = new SegmentWalk(driver);
  }

  /**
   * The first call reads every record the driver holds (every scope's too: scoped keys are listed by the
   * unscoped driver). A later one lists every record again and reads only those new or changed since (a fork
   * made meanwhile is a new record): it gives what the erasure has not seen yet, or has seen change.
   */
  async scan(signal: AbortSignal | undefined): Promise<ErasurePlan> {
    const owned: StoredRecord[] = [];
    let scanned = 0;
    for (let after: string | undefined; ; ) {
      signal?.throwIfAborted();
      const batch = await this.driver.list({ after, limit: SCAN_BATCH });
      const fresh = batch.filter((item) => this.#seen.get(item.id) !== item.updatedAt);
      const records = await Promise.all(fresh.map((item) => this.driver.read(item.id)));
      scanned += fresh.length;
      for (const record of records) {
        if (!record) continue; // deleted since it was listed
        this.#seen.set(record.id, record.updatedAt);
        this.#forks.delete(record.id);
        if (ownedBy(record, this.owner)) owned.push(record);
        else if (record.kind === "log" && forkEvent(record)) this.#forks.set(record.id, record);
      }
      const last = batch[batch.length - 1];
      if (batch.length < SCAN_BATCH || !last) break;
      after = last.id;
    }
    // The owned threads' chains are walked a batch at a time, not one after another: on a networked store
    // the segment reads of a batch then share round trips (a pipeline) instead of waiting one by one.
    const logs = owned.filter((record) => record.kind === "log");
    for (let from = 0; from < logs.length; from += SCAN_BATCH) {
      signal?.throwIfAborted();
      const batch = logs.slice(from, from + SCAN_BATCH);
      for (const made of await Promise.all(batch.map((record) => madeBy(record, this.#segments)))) {
        for (const id of made) this.#made.add(id);
      }
    }
    const shared: LogRecord[] = [];
    if (this.#made.size > 0) {
      for (const record of this.#forks.values()) {
        const from = forkEvent(record)?.from.segment;
        if (from !== undefined && (await this.#segments.reach([from])).some((id) => this.#made.has(id))) {
          shared.push(record);
          this.#forks.delete(record.id);
        }
      }
    }
    return { owned, shared, scanned };
  }

  /**
   * The ranges of a log `length` messages long whose head segment is `head`, from the segment infos the scan read (a
   * segment's info never changes), so measuring a thread does not read them again. A missing segment is a
   * `SkeinError`, as `SegmentChains.chain` reports it.
   */
  async chain(head: string, length: number): Promise<ChainRange[]> {
    const walked = new Map<string, SegmentInfo>();
    for (let id: string | undefined = head; id !== undefined && !walked.has(id); ) {
      const info = await this.#segments.info(id);
      if (!info) {
        throw new SkeinError(`Segment ${id} is missing: the store is damaged.`, {
          source: this.driver.source,
        });
      }
      walked.set(id, info);
      id = info.base?.segment;
    }
    const start = (walked.get(head) as SegmentInfo).start;
    return chainRanges(head, length - start, (id) => walked.get(id) as SegmentInfo);
  }
}

/** The segments a local thread made: those its end and history reach, less those its fork point reaches. */
async function madeBy(record: LogRecord, segments: SegmentWalk): Promise<string[]> {
  const reached = await segments.reach([
    record.head,
    ...eventPoints(record.events).map((point) => point.segment),
  ]);
  const fork = forkEvent(record);
  if (!fork) return reached;
  const inherited = new Set(await segments.reach([fork.from.segment]));
  return reached.filter((id) => !inherited.has(id));
}

function forkEvent(record: LogRecord) {
  return record.events.find((event) => event.kind === "fork");
}

/**
 * Segment infos read once per erasure: a chain is walked base by base, and shared bases are read once, also
 * by walks running at the same time (the read in flight is held, not its result).
 */
class SegmentWalk {
  readonly #infos = new Map<string, Promise<SegmentInfo | undefined>>();
  constructor(readonly driver: LogDriver) {}

  info(id: string): Promise<SegmentInfo | undefined> {
    let info = this.#infos.get(id);
    if (!info) {
      info = this.driver.segment(id);
      this.#infos.set(id, info);
    }
    return info;
  }

  /** Every segment the given ones continue, them included; a segment gone meanwhile ends its walk. */
  async reach(starts: string[]): Promise<string[]> {
    const seen = new Set<string>();
    for (const start of starts) {
      for (let id: string | undefined = start; id !== undefined && !seen.has(id); ) {
        seen.add(id);
        id = (await this.info(id))?.base?.segment;
      }
    }
    return [...seen];
  }
}

/** The scopes a driver key lives in, outermost first, and the id within the innermost one. */
export function splitScopedId(key: string): { scopes: string[]; id: string } {
  const scopes: string[] = [];
  let rest = key;
  // A scoped key is `SEP scope SEP key`; scope names and ids hold no control character, so this is exact.
  while (rest.startsWith(SCOPE_SEPARATOR)) {
    const end = rest.indexOf(SCOPE_SEPARATOR, 1);
    if (end < 0) break;
    scopes.push(rest.slice(1, end));
    rest = rest.slice(end + 1);
  }
  return { scopes, id: rest };
}
