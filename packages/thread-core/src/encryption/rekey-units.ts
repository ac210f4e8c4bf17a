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

/** The stored units of a log record, by where they are; a field absent here holds no unit. */
export interface RecordUnits {
  metadata: UnitKey;
  context: UnitKey;
  /** The context's authenticated end (absent on a record written in clear and never appended to since). */
  end?: UnitKey;
  /** Checkpoint labels, by the index of their event. */
  labels: Array<{ index: number; key: UnitKey }>;
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
    if (checkpoint[SEALED_LABEL] !== undefined)
      labels.push({ index, key: unitKey(checkpoint[SEALED_LABEL]) });
    else if (checkpoint.label !== undefined) labels.push({ index, key: CLEAR });
  });
  return {
    metadata: unitKey(record.metadata[SEALED_FIELD]),
    context: unitKey(record.context[SEALED_FIELD]),
    ...(end === undefined ? {} : { end: isPlainKey(end) ? end.key : CLEAR }),
    labels,
  };
}

/** Every unit key of `units`, one per unit. */
export function unitKeys(units: RecordUnits): UnitKey[] {
  return [
    units.metadata,
    units.context,
    ...(units.end === undefined ? [] : [units.end]),
    ...units.labels.map((label) => label.key),
  ];
}

/** The key id of a stored state's unit. */
export function stateUnitKey(record: StateRecord): UnitKey {
  return unitKey(record.state[SEALED_FIELD]);
}

// Anything but a sealed unit counts as clear here: opening the record tells clear (allowed) from tampered.
function unitKey(value: unknown): UnitKey {
  return isSealedUnit(value) ? value.key : CLEAR;
}

function isPlainKey(value: unknown): value is { key: string } {
  return typeof value === "object" && value !== null && typeof (value as { key?: unknown }).key === "string";
}
