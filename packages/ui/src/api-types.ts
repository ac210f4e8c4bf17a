// The JSON the server answers and the browser reads: one set of types for both ends.
import type {
  Alternative,
  Checkpoint,
  ListOptions,
  LogPoint,
  Message,
  ThreadCapabilities,
  ThreadSummary,
} from "@skein/thread-core";
import type { ExecutionState } from "@skein/thread-core/driver";

export type { Alternative, Checkpoint, LogPoint, Message, ThreadCapabilities };

/** The orders of the threads list: by last change, by creation (both newest first by default), or by id. */
export type ListOrder = NonNullable<ListOptions["order"]>;

/** `GET /api/info`: what the page needs before it draws anything. */
export interface UiInfo {
  storeUrl: string;
  /** Started with `--write`: fork, checkpoint, rollback, title edits and "make current" are offered. */
  write: boolean;
  /** Milliseconds between two checks of an open thread for changes. */
  pollInterval: number;
}

/** One row of the threads list. `messageCount` is null where counting would read a remote thread whole. */
export interface ThreadRow extends Omit<ThreadSummary, "messageCount"> {
  messageCount: number | null;
}

/** `GET /api/threads`: one page, keyset paged, in the order asked (`order`, `direction`), of one owner's threads if asked. */
export interface ThreadListPage {
  items: ThreadRow[];
  cursor?: string;
}

/** A sub-thread of a workflow: its type, and whether this process can read it (and if not, why). */
export interface SubThreadInfo {
  key: string;
  type: string;
  id?: string;
  readable: boolean;
  reason?: string;
  length: number | null;
  capabilities?: ThreadCapabilities;
}

/** A workflow thread's execution state and sub-threads, as the UI shows them. */
export interface WorkflowInfo {
  execution: ExecutionState;
  threads: SubThreadInfo[];
}

/** `GET /api/thread`: one thread's facts. `length` is null where it cannot be known without reading it all. */
export interface ThreadInfo {
  id: string;
  type: string;
  capabilities: ThreadCapabilities;
  revision: number | null;
  length: number | null;
  /** Absent when the thread has none. */
  owner?: string;
  /** Absent when the thread has none. */
  title?: string;
  /** Whether `title` can be changed here: a local thread, whose update checks `ifRevision`. */
  titleEditable: boolean;
  metadata: Record<string, unknown>;
  /** Changes whenever the thread does: what the live poll compares. */
  signature: string;
  workflow?: WorkflowInfo;
  checkpoints: Checkpoint[];
}

/** A message that has other versions (edits, regenerations): which one is shown, which is current, of how many. */
export interface VersionMark {
  /** The version shown, from 0 (the original), as in `thread.alternatives()`. */
  index: number;
  /** The version on the thread's current branch. */
  current: number;
  count: number;
}

/**
 * The branch a page shows when it was asked for one version of a message (`?version=ID&index=K`): that version,
 * read from `thread.alternatives(ID)`, whose branch the page reads with `at()`; the thread is not changed.
 */
export interface BranchShown {
  /** The message id the request named (any version at that place). */
  messageId: string;
  /** The version shown: its id and index are what `POST /api/switch` takes. */
  version: Alternative;
  count: number;
  /** The index of the version on the thread's current branch. */
  current: number;
}

/** `GET /api/messages`: messages `from` (a position, 0-based) onwards, at most `limit`. */
export interface MessagePage {
  from: number;
  length: number;
  messages: Message[];
  /** The thread's revision when the page was read (null for types without one): what a write from it carries. */
  revision: number | null;
  /** By message id: the messages of the page that have other versions. Absent when none has. */
  versions?: Record<string, VersionMark>;
  /** Present when the page shows another version's branch than the current one. */
  branch?: BranchShown;
  /**
   * A remote thread's page (its length is unknown, so positions count from the first message read): the id
   * to ask `?before=` for the messages before these; absent when there are none.
   */
  earlier?: string;
}

/** `GET /api/view`: what `view({ maxTokens, keepSystem })` keeps. */
export interface ContextView {
  length: number;
  keptIds: string[];
  tokens: number;
  maxTokens: number;
  keepSystem: boolean;
}

/** A node of the history graph, laid out: `row` top to bottom (newest first), `column` a branch lane. */
export interface GraphNode {
  key: string;
  position: number;
  /** The recorded point to open, fork or roll back to; absent on the HEAD (the thread now) and on the start. */
  point?: LogPoint;
  parent?: string;
  labels: string[];
  head: boolean;
  /** A checkpoint was taken here. */
  checkpoint: boolean;
  /** The thread a fork tip leads to. */
  forkId?: string;
  /** The thread this one was forked from, on its "forked from" node. */
  forkedFrom?: string;
  excerpt?: string;
  role?: string;
  row: number;
  column: number;
}

/** `GET /api/history`: a thread's history graph and how far the fork scan went. */
export interface HistoryGraphData {
  nodes: GraphNode[];
  /** Threads read while looking for forks of this one, and whether the scan stopped before the end. */
  forksScanned: number;
  forksScanIncomplete: boolean;
}

/** `GET /api/compare`: two points of one thread, where they part, and each side from there. */
export interface Comparison {
  shared: number;
  /** Each side: its point, or null for the thread as it is now. */
  a: { point: LogPoint | null; length: number; messages: Message[] };
  b: { point: LogPoint | null; length: number; messages: Message[] };
  /** Messages of a side beyond those returned. */
  truncated: boolean;
}

/** The body of a failed UI API request: the error's name and message. */
export interface ApiErrorBody {
  error: { name: string; message: string };
}

/**
 * `POST /api/fork`, `/api/checkpoint`, `/api/rollback`, `/api/title`, `/api/switch`: every change names the
 * revision it was decided on.
 */
export interface WriteRequest {
  id: string;
  scope?: string;
  ifRevision: number;
  /** fork: where (default the end); rollback: where to (required). */
  point?: LogPoint;
  checkpointId?: string;
  label?: string;
  forkId?: string;
  /** title: the new title, or null to clear it. */
  title?: string | null;
  /** switch: the version to make current (`Alternative.id`) and its index (`Alternative.index`). */
  alternativeId?: string;
  index?: number;
}

/** The answer to a UI write: what happened, the thread a fork made, and the revision after. */
export interface WriteResult {
  message: string;
  /** The fork's id, after a fork. */
  threadId?: string;
  revision: number | null;
}
