import { type TaskState, taskStateToJSON } from "@a2a-js/sdk";

/** A2A task states as they appear in skein JSON: the protocol's names, lower-case and hyphenated. */
export const A2A_TASK_STATES = [
  "submitted",
  "working",
  "input-required",
  "auth-required",
  "completed",
  "failed",
  "canceled",
  "rejected",
  "unspecified",
] as const;

/** An A2A task's state, as the protocol names it (`submitted`, `working`, `completed`, …). */
export type A2aTaskState = (typeof A2A_TASK_STATES)[number];

const KNOWN: ReadonlySet<string> = new Set(A2A_TASK_STATES);
const TERMINAL: ReadonlySet<A2aTaskState> = new Set(["completed", "failed", "canceled", "rejected"]);
const INTERRUPTED: ReadonlySet<A2aTaskState> = new Set(["input-required", "auth-required"]);

/**
 * The skein name of a state given as the wire's `TASK_STATE_INPUT_REQUIRED` or as the SDK's enum value.
 * States this version does not know read as `unspecified`.
 */
export function taskStateName(state: string | TaskState | undefined): A2aTaskState {
  if (state === undefined) return "unspecified";
  const wire = typeof state === "number" ? taskStateToJSON(state) : state;
  const name = wire
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replaceAll("_", "-");
  return KNOWN.has(name) ? (name as A2aTaskState) : "unspecified";
}

/** The wire name of a skein state (`input-required` → `TASK_STATE_INPUT_REQUIRED`). */
export function taskStateWireName(state: A2aTaskState): string {
  return `TASK_STATE_${state.toUpperCase().replaceAll("-", "_")}`;
}

/** A task in a terminal state takes no more messages; the next message starts a new task. */
export function isTerminalState(state: A2aTaskState | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

/** The agent stopped and waits for the client (input or credentials): the same task continues. */
export function isInterruptedState(state: A2aTaskState | undefined): boolean {
  return state !== undefined && INTERRUPTED.has(state);
}
