import { InvalidThreadStateError, ThreadNotFoundError, UnsupportedOperationError } from "../errors.js";
import { assertThreadId } from "../ids.js";
import { isPlainObject, type JsonObject } from "../json.js";
import type { LogDriver, StoredRecord } from "../local/log-driver.js";
import { exportLog, importLog, LogStateSchema } from "../local/log-state.js";
import { SegmentChains } from "../local/segment-chain.js";
import type { HistoryEvent } from "../thread.js";
import { sealedView } from "./sealed-driver.js";

/** The top-level field that marks an export as sealed, listing the key ids its units need. */
export const ENCRYPTED_EXPORT = "$encrypted";

/** Whether `json` is an export made with `{ encrypted: true }`. */
export function isSealedExport(json: unknown): json is JsonObject {
  return isPlainObject(json) && isPlainObject(json[ENCRYPTED_EXPORT]);
}

function viewOf(driver: LogDriver, type: string, method: string): LogDriver {
  const view = sealedView(driver);
  if (!view) {
    throw new UnsupportedOperationError(
      type,
      method,
      "the store is not encrypted; export without { encrypted: true } (plain skein JSON), or open the store with encryption",
      { source: driver.source },
    );
  }
  return view;
}

/**
 * `store.export(id, { encrypted: true })`: the thread as its store holds it, every unit sealed with its key
 * id (and owner), and the key ids listed under `$encrypted`. Ids, owner, timestamps and structure are clear,
 * as in the store. Only a store with the same keys imports it, into the same scope, under the same id.
 */
export async function exportSealed(driver: LogDriver, type: string, id: string): Promise<JsonObject> {
  assertThreadId(id);
  const view = viewOf(driver, type, "export with { encrypted: true }");
  const record = await view.read(id);
  if (!record) throw new ThreadNotFoundError(id, { source: driver.source });
  const body =
    record.kind === "state"
      ? { ...record.state, id }
      : ((await exportLog(
          new SegmentChains(view),
          record,
          // A local type of the application's keeps its type id; the store's own threads export as memory JSON.
          record.type === driver.nativeType ? "memory" : record.type,
        )) as unknown as JsonObject);
  return { ...body, [ENCRYPTED_EXPORT]: { keyIds: keyIdsIn(body) } };
}

/**
 * `store.import(sealedExport)`: writes the units as they are, after checking each opens in this store at
 * the place it is written (`KeyNotFoundError` without the keys, `IntegrityError` for another id or scope).
 */
export async function importSealed(
  driver: LogDriver,
  type: string,
  json: JsonObject,
  options: { id?: string },
): Promise<StoredRecord> {
  const view = viewOf(driver, type, "import of an encrypted export");
  const { [ENCRYPTED_EXPORT]: _marker, ...body } = json;
  const id = typeof body.id === "string" ? body.id : "";
  assertThreadId(id);
  if (options.id !== undefined && options.id !== id) {
    throw new InvalidThreadStateError(
      "an encrypted export is sealed for its own thread id: import it without { id }, or import a plain export under another id",
      ["id"],
    );
  }
  const log = LogStateSchema.safeParse(body);
  if (!log.success || !Array.isArray(body.segments)) {
    await view.putState(id, body as JsonObject, { ifRevision: 0 });
    return (await view.read(id)) as StoredRecord;
  }
  // The schema drops what it does not know; a checkpoint's sealed label is put back from the JSON.
  const events = log.data.events.map((event, index) =>
    withSealedLabel(event, (body.events as unknown[])[index]),
  );
  const localType = body.$type === "memory" || typeof body.$type !== "string" ? undefined : body.$type;
  return importLog(view, { ...log.data, events }, id, localType);
}

function withSealedLabel(event: HistoryEvent, raw: unknown): HistoryEvent {
  if (event.kind !== "checkpoint" || !isPlainObject(raw) || !isPlainObject(raw.checkpoint)) return event;
  const label = raw.checkpoint.$label;
  return label === undefined
    ? event
    : { ...event, checkpoint: { ...event.checkpoint, $label: label } as never };
}

/** The key ids of every sealed unit in the export, sorted. */
function keyIdsIn(body: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (isPlainObject(value)) {
      if (typeof value.key === "string" && typeof value.check === "string") found.add(value.key);
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(body);
  return [...found].sort();
}
