import { ThreadNotFoundError, UnsupportedOperationError } from "../errors.js";
import { cloneJson } from "../json.js";
import type { Checkpoint, Thread, ThreadSnapshot } from "../thread.js";
import { checkpointOf } from "./workflow-checkpoints.js";
import type { ExecutionState, WorkflowCheckpoint } from "./workflow-state.js";

/** A read-only workflow at one of its checkpoints: the execution state and every sub-thread as they were. */
export interface WorkflowSnapshot extends ThreadSnapshot {
  /** The workflow checkpoint shown. */
  readonly checkpoint: Checkpoint;
  /** The execution state saved with the checkpoint (a frozen copy). */
  readonly execution: Readonly<ExecutionState>;
  /** The keys of the sub-threads the workflow had at the checkpoint. */
  keys(): string[];
  /**
   * The sub-thread under `key` as it was at the checkpoint. `ThreadNotFoundError` for a key the workflow
   * did not have there; `UnsupportedOperationError`, naming its type and why, for a sub-thread whose
   * point was not kept (a type without checkpoints, or one whose adapter was not installed).
   */
  thread(key?: string): ThreadSnapshot;
}

/**
 * The workflow at `saved`. Sub-threads are read when asked: `open` finds the thread a sub-checkpoint was
 * taken of, so the snapshot costs the same whatever the number and length of the sub-threads.
 */
export function workflowSnapshot(
  workflowId: string,
  saved: WorkflowCheckpoint,
  open: (key: string, checkpoint: Checkpoint) => Promise<Thread>,
): WorkflowSnapshot {
  const pasts = new Map<string, ThreadSnapshot | UnsupportedOperationError>();
  for (const [key, entry] of Object.entries(saved.threads)) {
    pasts.set(
      key,
      entry.checkpoint
        ? subThreadPast(key, entry.checkpoint as unknown as Checkpoint, open)
        : new UnsupportedOperationError(
            entry.type,
            "time travel in a workflow",
            `sub-thread "${key}" kept no point in checkpoint ${saved.id} (${entry.reason ?? "no checkpoint was taken"}).`,
          ),
    );
  }
  const thread = (key = "main"): ThreadSnapshot => {
    const past = pasts.get(key);
    if (past === undefined) throw new ThreadNotFoundError(`${workflowId}#${key}`);
    if (UnsupportedOperationError.isInstance(past)) throw past;
    return past;
  };
  const checkpoint = checkpointOf(workflowId, saved);
  return {
    threadId: workflowId,
    point: checkpoint.point,
    checkpoint,
    execution: deepFreeze(cloneJson(saved.execution) as ExecutionState),
    keys: () => [...pasts.keys()],
    thread,
    messages: async (options) => thread().messages(options),
    view: async (options) => thread().view(options),
  };
}

/** One sub-thread at its checkpoint, read through its own `at()` the first time it is asked for. */
function subThreadPast(
  key: string,
  checkpoint: Checkpoint,
  open: (key: string, checkpoint: Checkpoint) => Promise<Thread>,
): ThreadSnapshot {
  let pending: Promise<ThreadSnapshot> | undefined;
  const past = () => {
    pending ??= open(key, checkpoint)
      .then((thread) => thread.at(checkpoint))
      .catch((error: unknown) => {
        // A failed read (a store outage) is tried again on the next call, not remembered.
        pending = undefined;
        throw error;
      });
    return pending;
  };
  return {
    threadId: checkpoint.threadId,
    point: { ...checkpoint.point },
    messages: async (options) => (await past()).messages(options),
    view: async (options) => (await past()).view(options),
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
