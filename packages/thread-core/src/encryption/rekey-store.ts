import { catalogueOf } from "../catalogue/catalogue-fields.js";
import { ConcurrencyError, InvalidOptionError, UnsupportedOperationError } from "../errors.js";
import {
  eventSegments,
  type LogDriver,
  type LogRecord,
  type StateRecord,
  type StoredRecord,
} from "../local/log-driver.js";
import type { Message } from "../message.js";
import type { RekeyOptions, RekeyOwnerReport, RekeyReport } from "../spec/rekey.js";
import { streamsOf } from "../streaming/stream-entries.js";
import type { RecordCodec } from "./record-codec.js";
import { oldRecordUnits, planRecordRewrite } from "./rekey-record.js";
import { CLEAR, sealOf, stateUnitSeal, storedMessageUnit, type UnitSeal } from "./rekey-units.js";

const DEFAULT_BATCH = 100;
const MAX_BATCH = 10_000;
/**
 * How often a record that writers keep changing is read and rewritten again before it is left for the next
 * run. Appends move a record's end to the current key themselves, and a rewrite without the end does not
 * race them, so on a thread that only grows the second attempt lands; the rest is for edits of metadata.
 */
const RECORD_ATTEMPTS = 5;

/** What a rekey walks: the stored (sealed) records under `prefix` of `inner`, opened and sealed by `codec`. */
export interface RekeyTarget {
  inner: LogDriver;
  codec: RecordCodec;
  /** The raw id prefix of a scope ("" for the whole store). */
  prefix: string;
}

/**
 * How much stored message text (about) a rekey gathers before one `rewriteMessages` call to a driver that
 * rewrites whole segments: the bound on its memory (the messages as read, then sealed anew) for a long segment.
 */
export const WHOLE_SEGMENT_BYTES = 16 * 1024 * 1024;

/** The walk was stopped by the caller's signal. */
const STOPPED = Symbol("rekey stopped");

/**
 * Moves every sealed unit under `target.prefix` that an older key sealed onto the current key, in place:
 * records page by page (`list`), then every segment a record reaches (head chain, checkpoints, rollbacks,
 * forks), `batchSize` messages per read and per `rewriteMessages` call (gathered up to a bound for a driver
 * whose rewrite copies the whole segment, `rewritesWholeSegments`). Units stored in clear (readable only
 * under `allowPlaintext`) are sealed the same way. Each rewrite is fenced (a message by its exact stored form,
 * a record by the stored form of the fields it rewrites, a saved state by its revision), so a writer racing it
 * loses nothing: the rewrite is tried again a few times, then counted as remaining and left for the next run.
 * A run is idempotent, so a run that was killed or stopped is finished by running it again. Memory: the ids
 * of the segments walked in this run.
 */
export async function rekeyStore(target: RekeyTarget, options: RekeyOptions = {}): Promise<RekeyReport> {
  const { inner } = target;
  if (!inner.rewriteMessages || !inner.rewriteRecord) {
    throw new UnsupportedOperationError(
      inner.nativeType,
      "rekey",
      `the ${inner.source} store cannot rewrite stored data in place; nothing was changed`,
      { source: inner.source },
    );
  }
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH) {
    throw new InvalidOptionError(
      "store.rekey",
      "batchSize",
      `a whole number from 1 to ${MAX_BATCH}`,
      String(batchSize),
    );
  }
  const walk = new RekeyWalk(target, batchSize, options.signal);
  try {
    let after: string | undefined;
    for (;;) {
      walk.checkSignal();
      const page = await inner.list({
        ...(target.prefix ? { prefix: target.prefix } : {}),
        ...(after === undefined ? {} : { after }),
        limit: batchSize,
      });
      for (const summary of page) await walk.record(summary.id);
      options.onProgress?.(walk.snapshot());
      if (page.length < batchSize) break;
      after = page[page.length - 1]?.id;
    }
  } catch (error) {
    if (error !== STOPPED) throw error;
    return walk.snapshot();
  }
  return { ...walk.snapshot(), complete: true };
}

class RekeyWalk {
  readonly #report: RekeyReport;
  /** With per-owner keys, the counts by owner (undefined: threads without one); undefined otherwise. */
  readonly #owners: Map<string | undefined, RekeyOwnerReport> | undefined;
  readonly #walked = new Set<string>();
  readonly #current: string;
  readonly #inner: LogDriver;
  readonly #codec: RecordCodec;

  constructor(
    target: RekeyTarget,
    readonly batchSize: number,
    readonly signal: AbortSignal | undefined,
  ) {
    this.#inner = target.inner;
    this.#codec = target.codec;
    this.#current = target.codec.ring.current;
    this.#report = {
      current: this.#current,
      records: 0,
      segments: 0,
      rewritten: {},
      remaining: {},
      plaintext: { sealed: 0, remaining: 0 },
      complete: false,
    };
    this.#owners = target.codec.ring.perOwner ? new Map() : undefined;
  }

  checkSignal(): void {
    if (this.signal?.aborted) throw STOPPED;
  }

  snapshot(): RekeyReport {
    const owners = this.#owners;
    return {
      ...this.#report,
      rewritten: { ...this.#report.rewritten },
      remaining: { ...this.#report.remaining },
      plaintext: { ...this.#report.plaintext },
      ...(owners === undefined
        ? {}
        : {
            owners: [...owners.values()].sort(byOwner).map(({ rewritten, remaining, ...whose }) => ({
              ...whose,
              rewritten: { ...rewritten },
              remaining: { ...remaining },
            })),
          }),
    };
  }

  async record(id: string): Promise<void> {
    this.checkSignal();
    let stored = await this.#inner.read(id);
    if (!stored) return; // deleted since it was listed
    this.#report.records++;
    for (let attempt = 1; ; attempt++) {
      const old = this.#oldUnits(stored);
      const moved =
        old.length === 0 ||
        (stored.kind === "log" ? await this.#rewriteLog(stored) : await this.#rewriteState(stored));
      if (moved) {
        this.#count("rewritten", old);
        break;
      }
      const again = await this.#inner.read(id);
      if (!again) break;
      if (attempt >= RECORD_ATTEMPTS) {
        // What is still old now, not what was old when it was first read: a writer may have moved some.
        this.#count("remaining", this.#oldUnits(again));
        stored = again;
        break;
      }
      stored = again;
    }
    if (stored.kind === "log") {
      // A message stored in clear has no owner of its own: it is sealed for the thread that reached it first.
      const { owner } = catalogueOf(stored.context);
      // A reply still streaming (or left so by a crashed writer) keeps its batches in a segment of its own,
      // named only in the (sealed) context: moved too, or dropping the old key would make the thread unreadable.
      const opened = await this.#codec.openRecord(stored, async (events) => events);
      const replies = opened.kind === "log" ? streamsOf(opened.context).map((entry) => entry.segment) : [];
      const reached = [stored.head, ...stored.events.flatMap(eventSegments), ...replies];
      for (const segment of reached) await this.#chain(segment, owner);
    }
  }

  #oldUnits(stored: StoredRecord): UnitSeal[] {
    if (stored.kind === "log") return oldRecordUnits(stored, this.#current);
    return [stateUnitSeal(stored)].filter((unit) => unit.key !== this.#current);
  }

  async #rewriteLog(stored: LogRecord): Promise<boolean> {
    const rewrite = await planRecordRewrite(this.#codec, stored, this.#current);
    if (!rewrite) return true;
    const rewriteRecord = this.#inner.rewriteRecord as NonNullable<LogDriver["rewriteRecord"]>;
    return rewriteRecord.call(this.#inner, stored.id, rewrite);
  }

  /** A saved state is saved again, fenced by its revision (which therefore grows, as any save makes it). */
  async #rewriteState(stored: StateRecord): Promise<boolean> {
    const opened = await this.#codec.openState(stored);
    const sealed = await this.#codec.sealState(stored.id, opened.state);
    try {
      await this.#inner.putState(stored.id, sealed, { ifRevision: stored.revision });
      return true;
    } catch (error) {
      if (ConcurrencyError.isInstance(error)) return false;
      throw error;
    }
  }

  /** A segment and the segments it continues, each once per run. */
  async #chain(first: string, owner: string | undefined): Promise<void> {
    let segment: string | undefined = first;
    while (segment !== undefined && !this.#walked.has(segment)) {
      this.#walked.add(segment);
      this.#report.segments++;
      await this.#segment(segment, owner);
      segment = (await this.#inner.segment(segment))?.base?.segment;
    }
  }

  /**
   * A segment's old messages, read `batchSize` at a time. Each read's are rewritten at once, unless the
   * driver rewrites whole segments (`rewritesWholeSegments`): then they are gathered up to
   * `WHOLE_SEGMENT_BYTES` first, so a segment is copied once per run rather than once per batch.
   */
  async #segment(segment: string, owner: string | undefined): Promise<void> {
    const gather = this.#inner.rewritesWholeSegments === true;
    let planned: PlannedMessage[] = [];
    let plannedBytes = 0;
    for (let from = 0; ; from += this.batchSize) {
      this.checkSignal();
      const stored = await this.#inner.readSegment(segment, from, from + this.batchSize);
      stored.forEach((message, index) => {
        const unit = storedMessageUnit(message);
        // A message that holds no sealed unit is opened below: in clear it is sealed under `allowPlaintext`,
        // otherwise opening it names the integrity failure.
        if (unit?.key === this.#current) return;
        const key = unit ? unit.key : CLEAR;
        planned.push({
          offset: from + index,
          expected: message,
          unit: sealOf(key, unit?.owner),
          owner: unit ? unit.owner : owner,
        });
        plannedBytes += unit ? unit.data.length : JSON.stringify(message).length;
      });
      const last = stored.length < this.batchSize;
      if (planned.length > 0 && (!gather || last || plannedBytes >= WHOLE_SEGMENT_BYTES)) {
        await this.#rewriteMessages(segment, planned);
        planned = [];
        plannedBytes = 0;
      }
      if (last) return;
    }
  }

  async #rewriteMessages(segment: string, planned: PlannedMessage[]): Promise<void> {
    const codec = this.#codec;
    const rewrites = await Promise.all(
      planned.map(async ({ offset, expected, owner }) => {
        const opened = await codec.openMessage(expected, segment, offset);
        return { offset, expected, replacement: await codec.sealMessage(opened, segment, offset, owner) };
      }),
    );
    const rewrite = this.#inner.rewriteMessages as NonNullable<LogDriver["rewriteMessages"]>;
    const done = await rewrite.call(this.#inner, segment, rewrites);
    for (const [index, { offset, unit }] of planned.entries()) {
      if (done[index]) {
        this.#count("rewritten", [unit]);
        continue;
      }
      // Not as it was read: another rekey moved it already, or its segment was reclaimed meanwhile.
      const [now] = await this.#inner.readSegment(segment, offset, offset + 1);
      if (!now) continue;
      const still = storedMessageUnit(now);
      if (still?.key !== this.#current)
        this.#count("remaining", [still ? sealOf(still.key, still.owner) : { key: CLEAR }]);
    }
  }

  /**
   * Counts units by the key they were (`rewritten`) or still are (`remaining`) under, and with per-owner
   * keys by whose key that is too; clear ones apart (they belong to no owner's key yet).
   */
  #count(field: "rewritten" | "remaining", units: UnitSeal[]): void {
    for (const { key, owner } of units) {
      if (key === CLEAR) {
        this.#report.plaintext[field === "rewritten" ? "sealed" : "remaining"]++;
        continue;
      }
      increment(this.#report[field], key);
      if (this.#owners) increment(this.#ownerReport(this.#owners, owner)[field], key);
    }
  }

  #ownerReport(
    owners: Map<string | undefined, RekeyOwnerReport>,
    owner: string | undefined,
  ): RekeyOwnerReport {
    let report = owners.get(owner);
    if (!report) {
      report = { ...(owner === undefined ? {} : { owner }), rewritten: {}, remaining: {} };
      owners.set(owner, report);
    }
    return report;
  }
}

/** Threads without an owner first, then owners in code unit order (the same in every run). */
function byOwner(first: RekeyOwnerReport, second: RekeyOwnerReport): number {
  if (first.owner === second.owner) return 0;
  if (first.owner === undefined) return -1;
  if (second.owner === undefined) return 1;
  return first.owner < second.owner ? -1 : 1;
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** A stored message to move: where it is, as read, the unit it holds and whose key seals it anew. */
interface PlannedMessage {
  offset: number;
  expected: Message;
  unit: UnitSeal;
  owner: string | undefined;
}
