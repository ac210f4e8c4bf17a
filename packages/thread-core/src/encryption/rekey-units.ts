import type { LogRecord, StateRecord } from "../local/log-driver.js";
import type { Message } from "../message.js";
import { SEALED_CONTENT } from "./record-codec.js";
import { isSealedUnit } from "./sealed-unit.js";

// Where `RecordCodec` keeps a record's sealed units (its `$sealed` field of metadata, context and states, a
// checkpoint's `$label`). Rekeying reads only their clear key ids, to know what to move, without opening them.
const SEALED_FIELD = "$sealed";
const SEALED_LABEL = "$label";

/** The key id of a stored message's sealed unit; undefined when it holds none (opening it says why). */
export function storedMessageKey(message: Message): string | undefined {
  const unit = Array.isArray(message.contents) ? message.contents[0] : undefined;
  return unit?.type === SEALED_CONTENT && isSealedUnit(unit) ? unit.key : undefined;
}

/** The key ids of a stored log record's units: metadata, context and each checkpoint label. */
export function recordUnitKeys(record: LogRecord): string[] {
  const keys = [unitKey(record.metadata[SEALED_FIELD]), unitKey(record.context[SEALED_FIELD])];
  for (const event of record.events) {
    if (event.kind !== "checkpoint") continue;
    const label = (event.checkpoint as unknown as Record<string, unknown>)[SEALED_LABEL];
    if (label !== undefined) keys.push(unitKey(label));
  }
  return keys.flatMap((key) => key ?? []);
}

/** The key id of a stored state's unit. */
export function stateUnitKey(record: StateRecord): string | undefined {
  return unitKey(record.state[SEALED_FIELD]);
}

function unitKey(value: unknown): string | undefined {
  return isSealedUnit(value) ? value.key : undefined;
}
