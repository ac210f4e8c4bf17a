import { ConflictError } from "../errors.js";
import { newSortableId } from "../ids.js";
import type { JsonValue } from "../json.js";
import type { ExecutionState, WorkflowStep } from "./workflow-state.js";

/**
 * Pure changes to a workflow's execution state: each returns a new state and never mutates its input,
 * so a failed save leaves the workflow as it was.
 */
export function enqueueStep(
  execution: ExecutionState,
  name: string,
  options: { input?: JsonValue; threadKey?: string } = {},
): { execution: ExecutionState; step: WorkflowStep } {
  const step: WorkflowStep = {
    id: newSortableId(),
    name,
    status: "pending",
    queuedAt: new Date().toISOString(),
    ...(options.threadKey === undefined ? {} : { threadKey: options.threadKey }),
    ...(options.input === undefined ? {} : { input: options.input }),
  };
  return {
    execution: { ...execution, steps: [...execution.steps, step], next: [...execution.next, step.id] },
    step,
  };
}

/** Starts the given queued step, or the first queued one. */
export function startStep(
  execution: ExecutionState,
  stepId?: string,
): { execution: ExecutionState; step: WorkflowStep } {
  const id = stepId ?? execution.next[0];
  if (id === undefined) throw new ConflictError("No step is queued; enqueue one first.");
  const step = findStep(execution, id);
  if (step.status !== "pending")
    throw new ConflictError(`Step ${step.name} (${id}) is ${step.status}, not pending.`);
  const started: WorkflowStep = { ...step, status: "running", startedAt: new Date().toISOString() };
  return {
    execution: {
      steps: replaceStep(execution.steps, started),
      current: [...execution.current, id],
      next: execution.next.filter((queued) => queued !== id),
    },
    step: started,
  };
}

/** Ends a running step as completed (with its output) or failed (with the error). */
export function endStep(
  execution: ExecutionState,
  stepId: string,
  outcome: { status: "completed"; output?: JsonValue } | { status: "failed"; error: string },
): { execution: ExecutionState; step: WorkflowStep } {
  const step = findStep(execution, stepId);
  if (step.status !== "running")
    throw new ConflictError(`Step ${step.name} (${stepId}) is ${step.status}, not running.`);
  const ended: WorkflowStep = {
    ...step,
    status: outcome.status,
    endedAt: new Date().toISOString(),
    ...(outcome.status === "completed" && outcome.output !== undefined ? { output: outcome.output } : {}),
    ...(outcome.status === "failed" ? { error: outcome.error } : {}),
  };
  return {
    execution: {
      ...execution,
      steps: replaceStep(execution.steps, ended),
      current: execution.current.filter((id) => id !== stepId),
    },
    step: ended,
  };
}

function findStep(execution: ExecutionState, id: string): WorkflowStep {
  const step = execution.steps.find((candidate) => candidate.id === id);
  if (!step) throw new ConflictError(`The workflow has no step ${JSON.stringify(id)}.`);
  return step;
}

function replaceStep(steps: WorkflowStep[], replacement: WorkflowStep): WorkflowStep[] {
  return steps.map((step) => (step.id === replacement.id ? replacement : step));
}
