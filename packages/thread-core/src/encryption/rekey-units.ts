import type { LogRecord, StateRecord } from "../local/log-driver.js";
import type { Message } from "../message.js";
import { SEALED_CONTENT } from "./record-codec.js";
import { storedEnd } from "./record-end.js";
import { isSealedUnit, type SealedUnit } from "./sealed-unit.js";

// Where `RecordCodec` keeps a record's sealed units (its `$sealed` field of metadata, context and states, a
// checkpoint's `$label`, the context's `$end`). Rekeying reads only their clear key ids, to know what to move,
// without opening them.
const SEALED_FIELD = "$sealed";
const SEALED_LABEL = "$label";

/** The key id a stored unit was sealed with, or `CLEAR` for one stored in clear (an `allowPlaintext` window). */
export type UnitKey = string | typeof CLEAR;
export const CLEAR = null;

/** A stored unit's key id and, with per-owner keys, whose key it is (as the unit names it, in clear). */
export interface UnitSeal {
  key: UnitKey;
  owner?: string;
}

/** The stored units of a log record, by where they are; a field absent here holds no unit. */
export interface RecordUnits {
  metadata: UnitSeal;
  context: UnitSeal;
  /** The context's authenticated end (absent on a record written in clear and never appended to since). */
  end?: UnitSeal;
  /** Checkpoint labels, by the index of their event. */
  labels: Array<{ index: number } & UnitSeal>;
}

/** The sealed unit a stored message holds; undefined when it holds none (in clear, or tampered: opening says which). */
export function storedMessageUnit(message: Message): SealedUnit | undefined {
  const unit = Array.isArray(message.contents) ? message.contents[0] : undefined;
  return unit?.type === SEALED_CONTENT && isSealedUnit(unit) ? unit : undefined;
}

/** The units of a stored log record: metadata, context, its end and each checkpoint label. */
export function recordUnits(record: LogRecord): RecordUnits {
  const end = storedEnd(record);
  const labels: RecordUnits["labels"] = [];
  record.events.forEach((event, index) => {
    if (event.kind !== "checkpoint") return;
    const checkpoint = event.checkpoint as unknown as Record<string, unknown>;
    if (checkpoint[SEALED_LABEL] !== undefined) labels.push({ index, ...unitSeal(checkpoint[SEALED_LABEL]) });
    else if (checkpoint.label !== undefined) labels.push({ index, key: CLEAR });
  });
  return {
    metadata: unitSeal(record.metadata[SEALED_FIELD]),
    context: unitSeal(record.context[SEALED_FIELD]),
    ...(end === undefined ? {} : { end: isPlainKey(end) ? sealOf(end.key, end.owner) : { key: CLEAR } }),
    labels,
  };
}

/** Every unit of `units`, one per unit. */
export function unitSeals(units: RecordUnits): UnitSeal[] {
  return [
    units.metadata,
    units.context,
    ...(units.end === undefined ? [] : [units.end]),
    ...units.labels.map(({ key, owner }) => sealOf(key, owner)),
  ];
}

/** The key id (and owner) of a stored state's unit. */
export function stateUnitSeal(record: StateRecord): UnitSeal {
  return unitSeal(record.state[SEALED_FIELD]);
}

// Anything but a sealed unit counts as clear here: opening the record tells clear (allowed) from tampered.
function unitSeal(value: unknown): UnitSeal {
  return isSealedUnit(value) ? sealOf(value.key, value.owner) : { key: CLEAR };
}

/** A unit's seal, with its owner only when it names one. */
export function sealOf(key: UnitKey, owner: unknown): UnitSeal {
  return typeof owner === "string" ? { key, owner } : { key };
}

function isPlainKey(value: unknown): value is { key: string; owner?: unknown } {
  return typeof value === "object" && value !== null && typeof (value as { key?: unknown }).key === "string";
}
