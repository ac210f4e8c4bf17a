import { ConcurrencyError, type PointTarget, type Thread, type ThreadStore } from "@skein/thread-core";
import type { WriteRequest, WriteResult } from "../api-types.js";
import { UiRequestError } from "../errors.js";
import { asPoint, openThread } from "./thread-address.js";
import { switchVersion, updateTitle } from "./thread-edits.js";
import { knownLength } from "./thread-reads.js";

export type WriteAction = "fork" | "checkpoint" | "rollback" | "title" | "switch";

/** Checks a write's body: the thread, the revision the person saw, and the point it is about. */
export function parseWriteRequest(body: unknown): WriteRequest {
  const value = body as Partial<WriteRequest> | null;
  if (typeof value !== "object" || value === null || typeof value.id !== "string" || value.id === "")
    throw new UiRequestError(400, "A write names its thread: { id, ifRevision }.");
  if (!Number.isSafeInteger(value.ifRevision))
    throw new UiRequestError(400, "Every write carries ifRevision, the revision it was decided on.");
  const optionalText = (name: "scope" | "checkpointId" | "label" | "forkId" | "alternativeId") => {
    const text = value[name];
    if (text !== undefined && typeof text !== "string")
      throw new UiRequestError(400, `${name} must be a string.`);
    return text === undefined || text === "" ? {} : { [name]: text };
  };
  if (value.title !== undefined && value.title !== null && typeof value.title !== "string")
    throw new UiRequestError(400, "title must be a string, or null to clear it.");
  if (value.index !== undefined && !(Number.isSafeInteger(value.index) && (value.index as number) >= 0))
    throw new UiRequestError(400, "index must be a version's index in alternatives(), 0 or more.");
  return {
    id: value.id,
    ifRevision: value.ifRevision as number,
    ...(value.point === undefined ? {} : { point: asPoint(value.point, "point") }),
    ...optionalText("scope"),
    ...optionalText("checkpointId"),
    ...optionalText("label"),
    ...optionalText("forkId"),
    ...optionalText("alternativeId"),
    ...(value.title === undefined ? {} : { title: value.title }),
    ...(value.index === undefined ? {} : { index: value.index }),
  };
}

/**
 * Runs one write. Rollback passes `ifRevision` to the thread, which refuses atomically. Fork and
 * checkpoint take no `ifRevision` in the library, so the revision is checked just before; a fork goes
 * to the point the person chose whatever happened since, and a checkpoint that lands after a change made
 * in between says so.
 */
export async function runWrite(
  store: ThreadStore,
  action: WriteAction,
  request: WriteRequest,
): Promise<WriteResult> {
  const thread = await openThread(store, {
    id: request.id,
    ...(request.scope ? { scope: request.scope } : {}),
  });
  if (action === "title") return updateTitle(thread, request);
  if (action === "switch") return switchVersion(thread, request);
  const target: PointTarget | undefined = request.point ?? request.checkpointId;
  if (action === "rollback") {
    if (target === undefined) throw new UiRequestError(400, "A rollback needs a point or a checkpointId.");
    await thread.rollback(target, { ifRevision: request.ifRevision });
    await thread.refresh();
    return {
      message: `Rolled ${thread.id} back to #${knownLength(thread) ?? "?"}.`,
      revision: thread.revision ?? null,
    };
  }
  assertRevision(thread, request.ifRevision);
  if (action === "fork") {
    const fork = await thread.fork({
      ...(target === undefined ? {} : { at: target }),
      ...(request.forkId ? { id: request.forkId } : {}),
    });
    return {
      message: `Forked ${thread.id} into ${fork.id}.`,
      threadId: fork.id,
      revision: thread.revision ?? null,
    };
  }
  const seenLength = knownLength(thread);
  const checkpoint = await thread.checkpoint(request.label);
  await thread.refresh();
  const moved = seenLength !== null && checkpoint.point.position !== seenLength;
  return {
    message: moved
      ? `Checkpoint ${checkpoint.id} made at #${checkpoint.point.position}: the thread changed while it was made (you saw #${seenLength}).`
      : `Checkpoint ${checkpoint.id} made at #${checkpoint.point.position}.`,
    revision: thread.revision ?? null,
  };
}

function assertRevision(thread: Thread, expected: number): void {
  const actual = thread.revision;
  if (actual !== undefined && actual !== expected)
    throw new ConcurrencyError(thread.id, expected, actual, { source: "ui" });
}
