import { PointNotFoundError, UnknownThreadTypeError } from "../errors.js";
import { newRandomId } from "../ids.js";
import { cloneJson, type JsonValue } from "../json.js";
import { OpaqueThreadState } from "../opaque-state.js";
import { SKEIN_TYPE_PACKAGES } from "../registry.js";
import type { ThreadStore } from "../store/store.js";
import type { Checkpoint, HistoryEvent, LogPoint, PointTarget, Thread } from "../thread.js";
import type { SubThread } from "./sub-thread.js";
import type { ExecutionState, WorkflowCheckpoint } from "./workflow-state.js";

/** What a workflow rollback did, and which remote sub-threads it could not roll back. */
export interface WorkflowRollbackReport {
  checkpointId: string;
  /** Sub-threads rolled back to their checkpoint. */
  rolledBack: string[];
  /** Sub-threads that could not be rolled back, each with the reason. */
  notRolledBack: Array<{ key: string; type: string; reason: string }>;
  /** Sub-threads added after the checkpoint: taken out of the workflow, not deleted. */
  detached: string[];
}

interface WorkflowLike {
  readonly id: string;
  readonly execution: Readonly<ExecutionState>;
}

/** Workflow history events name the main sub-thread's points; this one stands where it has none. */
export const NO_POINT: LogPoint = { segment: "-", offset: 0, position: 0 };

/**
 * Checkpoints every sub-thread that keeps checkpoints and records why the others could not be; `starts`
 * (by sub-thread id) are the revisions each sub-thread's checkpoint is fenced at.
 */
export async function takeCheckpoint(
  workflow: WorkflowLike,
  threads: Map<string, SubThread>,
  label?: string,
  starts?: ReadonlyMap<string, number>,
) {
  const entries: WorkflowCheckpoint["threads"] = {};
  for (const [key, sub] of threads) {
    if (OpaqueThreadState.isInstance(sub)) {
      entries[key] = {
        type: sub.$type,
        reason: `the adapter for "${sub.$type}" is not installed in this process`,
      };
    } else if (!sub.capabilities.checkpoints) {
      entries[key] = { type: sub.type, reason: `"${sub.type}" threads keep no checkpoints` };
    } else {
      const checkpoint = await sub.checkpoint(label, fenceOf(sub, starts));
      entries[key] = { type: sub.type, checkpoint: checkpoint as unknown as JsonValue };
    }
  }
  const createdAt = new Date().toISOString();
  const workflowCheckpoint: WorkflowCheckpoint = {
    id: newRandomId("wcp"),
    ...(label === undefined ? {} : { label }),
    createdAt,
    execution: cloneJson(workflow.execution) as ExecutionState,
    threads: entries,
  };
  const checkpoint = checkpointOf(workflow.id, workflowCheckpoint);
  const event: HistoryEvent = { kind: "checkpoint", checkpoint, at: createdAt, revision: 0 };
  return { workflowCheckpoint, checkpoint, event };
}

/** A workflow checkpoint as `checkpoint()` returns it: the workflow's id and the main sub-thread's point. */
export function checkpointOf(workflowId: string, saved: WorkflowCheckpoint): Checkpoint {
  const main = saved.threads.main?.checkpoint as Checkpoint | undefined;
  return {
    id: saved.id,
    ...(saved.label === undefined ? {} : { label: saved.label }),
    threadId: workflowId,
    point: { ...(main?.point ?? NO_POINT) },
    createdAt: saved.createdAt,
  };
}

/** The checkpoint id a target names, if it names one (a checkpoint or a string) rather than a log point. */
export function targetId(target: unknown): string | undefined {
  if (typeof target === "string") return target;
  if (typeof target === "object" && target !== null && "id" in target && typeof target.id === "string")
    return target.id;
  return undefined;
}

/**
 * The sub-thread a workflow checkpoint's entry was taken of: the one under its key while it is still that
 * thread, else that thread read from the store (it was taken out of the workflow, or its key was reused).
 */
export async function checkpointedThread(
  store: ThreadStore,
  current: ReadonlyMap<string, SubThread>,
  key: string,
  checkpoint: Checkpoint,
): Promise<Thread> {
  const sub = current.get(key);
  if (sub?.id === checkpoint.threadId) {
    if (OpaqueThreadState.isInstance(sub))
      throw new UnknownThreadTypeError(sub.$type, SKEIN_TYPE_PACKAGES[sub.$type]);
    return sub;
  }
  return store.get(checkpoint.threadId);
}

/**
 * Rolls every sub-thread back to its part of a workflow checkpoint and gives the execution state to
 * restore; `starts` (by sub-thread id) are the revisions each sub-thread's rollback is fenced at.
 */
export async function restoreCheckpoint(
  workflow: WorkflowLike,
  checkpoints: WorkflowCheckpoint[],
  current: Map<string, SubThread>,
  target: PointTarget,
  starts?: ReadonlyMap<string, number>,
) {
  const id = targetId(target);
  const saved = checkpoints.find((checkpoint) => checkpoint.id === id);
  if (!saved) throw new PointNotFoundError(workflow.id, id ?? `${(target as LogPoint).segment}`);
  const report: WorkflowRollbackReport = {
    checkpointId: saved.id,
    rolledBack: [],
    notRolledBack: [],
    detached: [],
  };
  const threads = new Map<string, SubThread>();
  for (const [key, entry] of Object.entries(saved.threads)) {
    const sub = current.get(key);
    if (!sub) {
      report.notRolledBack.push({
        key,
        type: entry.type,
        reason: "the sub-thread was removed from the workflow",
      });
      continue;
    }
    threads.set(key, sub);
    const reason = await rollbackSubThread(sub, entry, starts);
    if (reason === undefined) report.rolledBack.push(key);
    else report.notRolledBack.push({ key, type: entry.type, reason });
  }
  for (const key of current.keys()) if (!(key in saved.threads)) report.detached.push(key);
  const at = new Date().toISOString();
  const mainPoint = (saved.threads.main?.checkpoint as Checkpoint | undefined)?.point ?? NO_POINT;
  const from = report.rolledBack.includes("main")
    ? await lastRollbackStart(current.get("main") as Thread)
    : NO_POINT;
  const event: HistoryEvent = { kind: "rollback", from, to: mainPoint, target: saved.id, at, revision: 0 };
  return { report, execution: cloneJson(saved.execution) as ExecutionState, threads, event };
}

async function rollbackSubThread(
  sub: SubThread,
  entry: WorkflowCheckpoint["threads"][string],
  starts: ReadonlyMap<string, number> | undefined,
): Promise<string | undefined> {
  if (OpaqueThreadState.isInstance(sub))
    return `the adapter for "${sub.$type}" is not installed in this process`;
  if (!entry.checkpoint) return entry.reason ?? "no checkpoint was taken";
  if (!sub.capabilities.rollback) return `"${sub.type}" threads cannot be rolled back`;
  await (sub as Thread).rollback(entry.checkpoint as unknown as Checkpoint, fenceOf(sub, starts));
  return undefined;
}

/** A sub-thread's `{ ifRevision }` in a fenced workflow change: its start revision, when it has one. */
export function fenceOf(
  sub: Thread,
  starts: ReadonlyMap<string, number> | undefined,
): { ifRevision?: number } {
  const start = starts?.get(sub.id);
  return start === undefined ? {} : { ifRevision: start };
}

/** Where the main sub-thread's own rollback started, for the workflow's history. */
async function lastRollbackStart(main: Thread): Promise<LogPoint> {
  const last = (await main.history()).at(-1);
  return last?.kind === "rollback" ? last.from : NO_POINT;
}
