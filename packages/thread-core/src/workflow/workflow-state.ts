import { z } from "zod";
import { HistoryEventSchema } from "../local/log-state.js";
import { ThreadStateSchema } from "../thread-type.js";
import { TimestampSchema } from "../timestamp.js";

const timestamp = TimestampSchema;

/** Every status a workflow step can have. */
export const STEP_STATUSES = ["pending", "running", "completed", "failed"] as const;
/** A workflow step's status: `pending`, `running`, `completed` or `failed`. */
export type StepStatus = (typeof STEP_STATUSES)[number];

/** The zod schema of a workflow step. */
export const WorkflowStepSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  status: z.enum(STEP_STATUSES),
  /** The sub-thread the step works in, if any. */
  threadKey: z.string().optional(),
  /** References to what the step reads and produced (message ids, file ids, any JSON). */
  input: z.json().optional(),
  output: z.json().optional(),
  error: z.string().optional(),
  queuedAt: timestamp,
  startedAt: timestamp.optional(),
  endedAt: timestamp.optional(),
});
/** One step of a workflow: its id, name and status. */
export type WorkflowStep = z.infer<typeof WorkflowStepSchema>;

/** The zod schema of a workflow's execution state. */
export const ExecutionStateSchema = z.object({
  steps: z.array(WorkflowStepSchema),
  /** Ids of running steps. */
  current: z.array(z.string()),
  /** Ids of queued steps, in the order they will start. */
  next: z.array(z.string()),
});
/** Where a workflow stands: the steps taken, the current step(s) and the next ones. */
export type ExecutionState = z.infer<typeof ExecutionStateSchema>;

const SubThreadCheckpointSchema = z.object({
  type: z.string(),
  /** The sub-thread's own checkpoint, for types that keep them. */
  checkpoint: z.json().optional(),
  /** Why the sub-thread has no checkpoint here. */
  reason: z.string().optional(),
});

/** The zod schema of a workflow checkpoint. */
export const WorkflowCheckpointSchema = z.object({
  id: z.string().min(1),
  label: z.string().optional(),
  createdAt: timestamp,
  execution: ExecutionStateSchema,
  threads: z.record(z.string(), SubThreadCheckpointSchema),
});
/** A workflow checkpoint: its execution state and the checkpoints of its sub-threads. */
export type WorkflowCheckpoint = z.infer<typeof WorkflowCheckpointSchema>;

/** The `workflow` type's JSON: sub-thread states by key, execution state, and checkpoints. */
export const WorkflowStateSchema = ThreadStateSchema.extend({
  $type: z.literal("workflow"),
  createdAt: timestamp,
  metadata: z.record(z.string(), z.json()).default({}),
  context: z.record(z.string(), z.json()).default({}),
  revision: z.number().int().nonnegative().default(0),
  /** Sub-threads' states, parsed through the registry (opaque when their type is not installed). */
  threads: z.record(z.string(), ThreadStateSchema),
  execution: ExecutionStateSchema.default({ steps: [], current: [], next: [] }),
  checkpoints: z.array(WorkflowCheckpointSchema).default([]),
  events: z.array(HistoryEventSchema).default([]),
});
/** The JSON of a `workflow` thread: its sub-threads, execution state and checkpoints. */
export type WorkflowState = z.infer<typeof WorkflowStateSchema>;

/** A workflow's own state, without its sub-threads (which live as bound threads beside it). */
export type WorkflowData = Pick<
  WorkflowState,
  | "$type"
  | "$v"
  | "id"
  | "createdAt"
  | "metadata"
  | "context"
  | "revision"
  | "execution"
  | "checkpoints"
  | "events"
>;
