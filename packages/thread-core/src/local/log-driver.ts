import { UnsupportedOperationError } from "../errors.js";
import { newRandomId } from "../ids.js";
import type { LogDriver, SegmentInfo, StoredRecord } from "../spec/log-driver.js";
import type { HistoryEvent } from "../spec/thread.js";
import { streamsOf } from "../streaming/stream-entries.js";

export type * from "../spec/log-driver.js";

/** How many operation ids a local thread keeps: an operation retried after this many newer ones is applied again. */
export const OPERATIONS_KEPT = 100;

/**
 * Deletes a record through its driver, `ifRevision` checked in the same atomic step; a driver that cannot
 * check it (no `fencedDelete`) refuses with `UnsupportedOperationError` and deletes nothing. `known` is the
 * record as the caller read it: used in place of a read when its revision is the `ifRevision` fenced by.
 */
export async function deleteRecord(
  driver: LogDriver,
  id: string,
  type: string,
  options: { ifRevision?: number; known?: StoredRecord } = {},
): Promise<boolean> {
  if (options.ifRevision !== undefined && !driver.fencedDelete) {
    throw new UnsupportedOperationError(
      type,
      "delete with ifRevision",
      `the ${driver.source} driver cannot check a revision in the same step as a delete; nothing was deleted`,
      { source: driver.source },
    );
  }
  // Replies streaming into the thread have segments of their own that no record points at: read them
  // first, so the delete reclaims them too (their writers' `end` then finds no thread). A record the caller
  // read at the revision the delete is fenced by names the same ones, so it is not read again.
  const known = options.known?.revision === options.ifRevision ? options.known : undefined;
  const record = driver.dropSegment ? (known ?? (await driver.read(id))) : undefined;
  const deleted =
    options.ifRevision === undefined
      ? await driver.delete(id)
      : await driver.delete(id, { ifRevision: options.ifRevision });
  if (deleted && record?.kind === "log") {
    for (const entry of streamsOf(record.context)) {
      await driver.dropSegment?.(entry.segment).catch(() => undefined);
    }
  }
  return deleted;
}

/** A fresh head segment for a thread, continuing `base` (or starting the log). */
export function newHeadSegment(
  driver: LogDriver,
  threadId: string,
  base: { segment: string; offset: number } | null,
  start: number,
): SegmentInfo {
  const id = driver.newSegmentId?.(threadId) ?? newRandomId("seg");
  return {
    id,
    base: base && { segment: base.segment, offset: base.offset },
    start,
    createdAt: new Date().toISOString(),
  };
}

/** The segments a history event points at, and so keeps alive: a checkpoint's, both ends of a rollback, a fork's base. */
export function eventSegments(event: HistoryEvent): string[] {
  switch (event.kind) {
    case "checkpoint":
      return [event.checkpoint.point.segment];
    case "rollback":
      return [event.from.segment, event.to.segment];
    case "fork":
      return [event.from.segment];
  }
}
