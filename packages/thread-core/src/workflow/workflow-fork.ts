import { PointNotFoundError, ThreadNotFoundError, UnsupportedOperationError } from "../errors.js";
import { cloneJson } from "../json.js";
import { OpaqueThreadState } from "../opaque-state.js";
import type { ThreadStore } from "../store/store.js";
import type { Checkpoint, ForkOptions, PointTarget, Thread } from "../thread.js";
import type { SubThread } from "./sub-thread.js";
import { checkpointedThread, fenceOf } from "./workflow-checkpoints.js";
import type { ExecutionState, WorkflowCheckpoint } from "./workflow-state.js";

/** A message of one sub-thread, by the sub-thread's key and the message's id. */
export interface SubThreadMessage {
  /** The sub-thread's key, e.g. `"planner"`. */
  thread: string;
  /** The id of one of its messages. */
  message: string;
}

/** Options of a workflow's fork: where (a point, or a sub-thread's message), the new id and metadata. */
export interface WorkflowForkOptions extends Omit<ForkOptions, "at"> {
  /**
   * Where the fork starts.
   * - A workflow checkpoint (as `checkpoint()` returned it, or its id): the execution state and every
   *   sub-thread the workflow had there, each forked at its own checkpoint.
   * - `{ thread, message }`: that sub-thread ends after the message; the other sub-threads and the
   *   execution state are forked as they are now.
   * - Any other string (`"start"` too), or a point from `history()`: a message or point of `main`, the
   *   same way.
   * @default every sub-thread and the execution state as they are now
   */
  at?: PointTarget | SubThreadMessage;
}

/** One sub-thread of a fork to come: the thread to fork and where. */
interface ForkPart {
  key: string;
  thread: Thread;
  at?: PointTarget;
}

/** What a workflow fork is made of; nothing is created until every part is known to be forkable. */
export interface ForkPlan {
  execution: ExecutionState;
  parts: ForkPart[];
  /** The part forked at a message: forked first, so a message that is not there fails before any copy. */
  atMessage?: { key: string; message: string };
}

interface WorkflowLike {
  readonly id: string;
  readonly store: ThreadStore;
  readonly execution: Readonly<ExecutionState>;
}

/** Plans a fork at the end (`saved` and `at` absent), at a workflow checkpoint, or after a sub-thread's message. */
export async function planFork(
  workflow: WorkflowLike,
  current: ReadonlyMap<string, SubThread>,
  saved: WorkflowCheckpoint | undefined,
  at: PointTarget | SubThreadMessage | undefined,
): Promise<ForkPlan> {
  if (saved) return planAtCheckpoint(workflow, current, saved);
  if (at !== undefined && typeof at !== "string" && "id" in at) {
    // A checkpoint of the main sub-thread forks there, as a message id of main does; any other checkpoint
    // object names a workflow checkpoint this workflow never took (or no longer holds).
    if (at.threadId !== current.get("main")?.id) throw new PointNotFoundError(workflow.id, at.id);
  }
  const target =
    at === undefined
      ? undefined
      : typeof at === "object" && "thread" in at
        ? { key: at.thread, at: at.message, message: at.message }
        : { key: "main", at, message: pointName(at) };
  if (target && !current.has(target.key)) throw new ThreadNotFoundError(`${workflow.id}#${target.key}`);
  const parts = [...current].map(([key, sub]) => ({
    key,
    thread: forkable(key, sub),
    ...(key === target?.key ? { at: target.at } : {}),
  }));
  return {
    execution: cloneJson(workflow.execution) as ExecutionState,
    parts,
    ...(target ? { atMessage: { key: target.key, message: target.message } } : {}),
  };
}

async function planAtCheckpoint(
  workflow: WorkflowLike,
  current: ReadonlyMap<string, SubThread>,
  saved: WorkflowCheckpoint,
): Promise<ForkPlan> {
  const parts: ForkPart[] = [];
  for (const [key, entry] of Object.entries(saved.threads)) {
    if (!entry.checkpoint) {
      throw new UnsupportedOperationError(
        entry.type,
        "forking at a workflow checkpoint",
        `sub-thread "${key}" kept no point in checkpoint ${saved.id} (${entry.reason ?? "no checkpoint was taken"}); fork the workflow without \`at\` to fork every sub-thread from its end.`,
      );
    }
    const checkpoint = entry.checkpoint as unknown as Checkpoint;
    const thread = await checkpointedThread(workflow.store, current, key, checkpoint);
    parts.push({ key, thread: forkable(key, thread), at: checkpoint });
  }
  return { execution: cloneJson(saved.execution) as ExecutionState, parts };
}

function forkable(key: string, sub: SubThread): Thread {
  if (OpaqueThreadState.isInstance(sub) || sub.capabilities.fork === "none") {
    throw new UnsupportedOperationError(
      OpaqueThreadState.isInstance(sub) ? sub.$type : sub.type,
      "fork",
      `sub-thread "${key}" cannot be forked, so the workflow cannot.`,
    );
  }
  return sub;
}

/**
 * Forks every part of the plan for the workflow `forkId`. Nothing is half done: when one fork fails, the
 * forks already made are deleted and the failure is what the caller sees. `starts` (by sub-thread id) are
 * the revisions a fenced fork forks each sub-thread at.
 */
export async function forkParts(
  plan: ForkPlan,
  workflowId: string,
  forkId: string,
  starts?: ReadonlyMap<string, number>,
): Promise<Map<string, Thread>> {
  const ordered = [...plan.parts].sort(
    (a, b) => Number(b.key === plan.atMessage?.key) - Number(a.key === plan.atMessage?.key),
  );
  const forks = new Map<string, Thread>();
  try {
    for (const part of ordered) {
      const metadata = { workflow: forkId, key: part.key };
      const fence = fenceOf(part.thread, starts);
      forks.set(
        part.key,
        await part.thread.fork(
          part.at === undefined ? { metadata, ...fence } : { at: part.at, metadata, ...fence },
        ),
      );
    }
  } catch (error) {
    await discardForks(forks.values());
    const missed = plan.atMessage;
    if (missed && !forks.has(missed.key) && PointNotFoundError.isInstance(error)) {
      throw new PointNotFoundError(`${workflowId}#${missed.key}`, missed.message, { cause: error });
    }
    throw error;
  }
  // The fork keeps the parent's key order.
  return new Map(plan.parts.map((part) => [part.key, forks.get(part.key) as Thread]));
}

/** Deletes forks made for a workflow fork that failed; their own failures must not hide the one that stopped it. */
export async function discardForks(forks: Iterable<Thread>): Promise<void> {
  await Promise.allSettled([...forks].map((fork) => fork.delete()));
}

function pointName(at: PointTarget): string {
  if (typeof at === "string") return at;
  return "id" in at ? at.id : `${at.segment}:${at.offset}`;
}
