import { catalogueOf } from "../catalogue/catalogue-fields.js";
import type { LogRecord, RecordRewrite } from "../local/log-driver.js";
import type { HistoryEvent } from "../thread.js";
import type { RecordCodec } from "./record-codec.js";
import { END_FIELD } from "./record-end.js";
import { recordUnits, type UnitSeal, unitSeals } from "./rekey-units.js";

/**
 * The rewrite that moves a stored log record's units not under `current` (older keys, or clear ones in an
 * `allowPlaintext` window) onto it; undefined when none is. Only those fields are in the rewrite: one left
 * out is not fenced either, so a record whose context is already current is rewritten without racing appends
 * (which rewrite the context). The record is opened first, which also checks its authenticated end, so the
 * end written back (for the stored head and length) is one the record already proved.
 */
export async function planRecordRewrite(
  codec: RecordCodec,
  stored: LogRecord,
  current: string,
): Promise<RecordRewrite | undefined> {
  const units = recordUnits(stored);
  const old = (unit: UnitSeal | undefined) => unit !== undefined && unit.key !== current;
  const labels = units.labels.filter(old);
  // An end an older version kept in the context moves out of it (a store that keeps ends beside it); a
  // context sealed here for the first time (written in clear) gets its first end with it.
  const endInContext = stored.context[END_FIELD] !== undefined;
  const contextMoves = old(units.context) || (codec.endBeside ? endInContext : old(units.end));
  const endMoves = codec.endBeside && (old(units.end) || endInContext || units.end === undefined);
  if (!old(units.metadata) && !contextMoves && !endMoves && labels.length === 0) return undefined;
  const { id } = stored;
  const opened = (await codec.openRecord(stored, (events) =>
    Promise.all(events.map((event) => codec.openEvent(id, event))),
  )) as LogRecord;
  // The owner is clear in the stored context; with per-owner keys, what is resealed goes under their key.
  const { owner } = catalogueOf(stored.context);
  const rewrite: RecordRewrite = {
    events: await Promise.all(
      labels.map(async ({ index }) => ({
        index,
        expected: stored.events[index] as HistoryEvent,
        replacement: await codec.sealEvent(id, opened.events[index] as HistoryEvent, owner),
      })),
    ),
  };
  if (old(units.metadata)) {
    rewrite.metadata = {
      expected: stored.metadata,
      replacement: await codec.sealMetadata(id, opened.metadata, owner),
    };
  }
  if (contextMoves) {
    const sealed = old(units.context) ? await codec.sealContext(id, opened.context) : stored.context;
    rewrite.context = {
      expected: stored.context,
      replacement: (await codec.placeEnd(sealed, stored)).context,
    };
  }
  // Fenced by the stored end, which each append replaces (under the current key: the next attempt finds none old).
  if (endMoves) rewrite.end = { expected: stored.end, replacement: await codec.sealedEnd(stored, owner) };
  return rewrite;
}

/** The units of `stored` a rewrite of it moves, by key (what `planRecordRewrite` leaves out is current). */
export function oldRecordUnits(stored: LogRecord, current: string): UnitSeal[] {
  return unitSeals(recordUnits(stored)).filter((unit) => unit.key !== current);
}
