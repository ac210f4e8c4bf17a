import {
  type Checkpoint,
  type HistoryEvent,
  type LogPoint,
  type Message,
  type ThreadCapabilities,
  type ThreadState,
  ThreadStateSchema,
} from "@skein/thread-core";
import { MessageSchema, z } from "@skein/thread-core/driver";

export const RESPONSES_TYPE = "openai.responses";

/** A place in a response chain: the response it ends with, and input appended after it, not yet sent. */
export interface ChainPoint {
  /** The last response of the chain; null before the first run. */
  responseId: string | null;
  /** How many items the chain holds up to and including that response's output. */
  length: number;
  /** Messages appended after it and not yet sent to the model. */
  pending: Message[];
}

const CheckpointRecordSchema = z.looseObject({
  id: z.string().min(1),
  label: z.string().optional(),
  createdAt: z.iso.datetime(),
  responseId: z.string().min(1).nullable(),
  length: z.number().int().nonnegative(),
  pending: z.array(MessageSchema),
});
export interface CheckpointRecord extends ChainPoint {
  id: string;
  label?: string;
  createdAt: string;
}

/**
 * `openai.responses` state: a pointer into a chain of stored responses, plus the input waiting for the
 * next run. Forks, checkpoints and rollbacks only move or copy the pointer.
 */
export const OpenAIResponsesStateSchema = ThreadStateSchema.extend({
  $type: z.literal(RESPONSES_TYPE),
  /** Grows with each change of the state; `{ ifRevision }` compares it. */
  revision: z.number().int().nonnegative(),
  /** The chain's last response: the next run sends it as `previous_response_id`. */
  previousResponseId: z.string().min(1).nullable(),
  /** Items in the chain up to that response. */
  length: z.number().int().nonnegative(),
  /** Appended messages the model has not seen yet; the next run sends them as its input. */
  pending: z.array(MessageSchema),
  checkpoints: z.array(CheckpointRecordSchema),
  /** Checkpoints, rollbacks and the fork this thread came from, oldest first. */
  events: z.array(z.record(z.string(), z.json())),
});

/** The JSON of an `openai.responses` thread: the chain of stored responses it continues. */
export interface OpenAIResponsesState extends ThreadState {
  $type: typeof RESPONSES_TYPE;
  createdAt: string;
  revision: number;
  previousResponseId: string | null;
  length: number;
  pending: Message[];
  checkpoints: CheckpointRecord[];
  events: HistoryEvent[];
}

/** Everything is a pointer move on a chain the service keeps immutable, so forks and rollbacks are native. */
export const RESPONSES_CAPABILITIES: ThreadCapabilities = Object.freeze({
  fork: "native",
  checkpoints: true,
  rollback: true,
  timeTravel: true,
  views: true,
  revisions: true,
  // the responses stay on the service, where forks may still use them.
  remoteDelete: false,
});

/** The point a state is at now. */
export function currentPoint(state: OpenAIResponsesState): ChainPoint {
  return { responseId: state.previousResponseId, length: state.length, pending: state.pending };
}

/** A chain point as thread-core's `LogPoint`: the response is the segment, pending messages the offset. */
export function logPointOf(point: ChainPoint): LogPoint {
  return {
    segment: point.responseId ?? "root",
    offset: point.pending.length,
    position: point.length + point.pending.length,
  };
}

export function checkpointOf(threadId: string, record: CheckpointRecord): Checkpoint {
  return {
    id: record.id,
    ...(record.label === undefined ? {} : { label: record.label }),
    threadId,
    point: logPointOf(record),
    createdAt: record.createdAt,
  };
}
