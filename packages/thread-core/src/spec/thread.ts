// The `Thread` contract and the options and results of its methods. Only types: the constant `START` stays in
// thread.ts, which re-exports these.

import type { Message, MessageInput } from "./message.js";
import type { ExpiryInput } from "./retention.js";
import type { ThreadState } from "./thread-state.js";

/** What a thread type can do. Operations a type lacks throw `UnsupportedOperationError`. */
export interface ThreadCapabilities {
  /** `"native"`: O(1), sharing history; `"copy"`: the history is copied; `"none"`: no fork. */
  fork: "native" | "copy" | "none";
  checkpoints: boolean;
  rollback: boolean;
  /** `at()` and `history()`: reading the past. */
  timeTravel: boolean;
  views: boolean;
  /** `revision` and `{ ifRevision }`. */
  revisions: boolean;
  /**
   * Present on threads kept by a service: true when `delete()` deletes the service's copy too, false when
   * only the stored state goes and the service keeps the thread (`store.erase` reports it as not deleted).
   */
  remoteDelete?: boolean;
}

/** Options every change takes: the revision it was decided on (`ifRevision`). */
export interface UpdateOptions {
  /** Write only if the thread is still at this revision, else `ConcurrencyError` and nothing is written. */
  ifRevision?: number;
}

/** Options of `thread.append`: a revision to check and an operation id that makes a retry a no-op. */
export interface AppendOptions extends UpdateOptions {
  /**
   * The caller's id for this change (1–256 characters). A change whose operation id the thread has applied
   * already writes nothing and returns the first application's result, even when that appended nothing.
   * Local threads keep the ids of their last `OPERATIONS_KEPT` (100) changes with the thread.
   */
  operationId?: string;
}

/** Options of `thread.edit` and `thread.regenerate`: a revision, an operation id and messages to follow the new version. */
export interface EditOptions extends AppendOptions {
  /** Messages that follow the new version on its branch (an edited question's answer), in the same atomic change. */
  append?: MessageInput | MessageInput[];
}

/** Options of `thread.switchTo`: a revision, an operation id, and which version when several share the id. */
export interface SwitchOptions extends AppendOptions {
  /** The version's index in `alternatives()`, for versions that share an id (edits that kept the message's id). */
  index?: number;
}

/** Options of `thread.rollback`: the revision to check, an operation id and messages to append after the rollback. */
export interface RollbackOptions extends AppendOptions {
  /**
   * Messages to append after the rollback, in the same atomic change. A retry with the same messages is a
   * no-op: when the thread already ends, right after the target, with equal messages under these ids.
   */
  append?: MessageInput | MessageInput[];
}

/** Options of `thread.messages`: the last k, after or before an id, and a page limit. */
export interface ReadOptions {
  /** The last n messages (after `after`, when both are given, the last n of those). */
  last?: number;
  /** Only messages after the one with this id. */
  after?: string;
  /** Only messages before the one with this id. */
  before?: string;
  /**
   * At most this many messages, from the first that matches; with `before` and no `after`, the last this many
   * before it, so `{ before, limit }` pages backwards.
   */
  limit?: number;
}

/** Options of `thread.view`: message and token budgets, a token counter and whether system messages stay. */
export interface ViewOptions {
  maxMessages?: number;
  maxTokens?: number;
  /** Counts a message's tokens. @default estimateTokens (about 4 characters a token) */
  countTokens?: (message: Message) => number;
  /** Keep every system message, whatever the budget. @default true */
  keepSystem?: boolean;
  /**
   * Add the messages that are still streaming (`thread.beginMessage`), after the rest, outside the budget.
   * @default false: a model is given only finished messages
   */
  streaming?: boolean;
}

/** Options of `thread.fork`: where to fork (default: the end), the new thread's id and metadata. */
export interface ForkOptions extends UpdateOptions {
  /** Fork after this message (it is the fork's last). @default the end of the thread */
  at?: PointTarget;
  /** The fork's id. @default a new sortable id */
  id?: string;
  /** Merged over a copy of the parent's metadata. */
  metadata?: Record<string, unknown>;
  /** The fork's owner. @default the parent's */
  owner?: string;
  /** The fork's title. @default the parent's */
  title?: string;
  /** When the fork expires. @default never: a fork outlives its parent's `expiresAt` */
  expiresAt?: ExpiryInput | null;
}

/** A place in a local thread's log: `offset` messages of `segment`'s own, after everything before it. */
export interface LogPoint {
  segment: string;
  offset: number;
  /** How many messages the thread has at this point. */
  position: number;
}

/**
 * Where to go: a checkpoint (or its id), a message id (the point just after it), a point from `history()`, or
 * `"start"` (before the first message; no checkpoint needed, so a message with the id "start" is not a target).
 */
export type PointTarget = Checkpoint | LogPoint | string;

/** A named point of a thread's history, made by `thread.checkpoint(label)`. */
export interface Checkpoint {
  id: string;
  label?: string;
  threadId: string;
  point: LogPoint;
  createdAt: string;
}

/**
 * What a rollback that changed one message's version recorded (`thread.edit`, `regenerate`, `switchTo`): the
 * position, the messages before it, and the versions left and entered there. Versions of one message share
 * `position` and `after`.
 */
export interface BranchChange {
  reason: "edit" | "regenerate" | "switch";
  /** How many messages come before the message whose versions these are. */
  position: number;
  /** The point right after the message before it (`null` at the start of the thread). */
  after: { segment: string; offset: number } | null;
  /** The message at `position` on the branch left; absent when that branch had none (an unanswered regenerate). */
  left?: string;
  /** Where `left` is stored (its segment and index among the segment's own messages): versions may share an id. */
  leftAt?: { segment: string; offset: number };
  /** The message at `position` on the branch entered; absent when it has none yet (a regenerate without reply). */
  entered?: string;
  /** Where `entered` is stored. */
  enteredAt?: { segment: string; offset: number };
  /** Where the branch entered ended right after the change. */
  end: LogPoint;
}

/** One entry of a local thread's history: a checkpoint, a rollback or the fork it came from. */
export type HistoryEvent =
  | { kind: "checkpoint"; checkpoint: Checkpoint; at: string; revision: number }
  | {
      kind: "rollback";
      from: LogPoint;
      to: LogPoint;
      target: string;
      at: string;
      revision: number;
      /** Present when the rollback changed a message's version (edit, regenerate, switchTo). */
      branch?: BranchChange;
    }
  | { kind: "fork"; parentId: string; from: LogPoint; at: string; revision: number };

/** One version of a message: the original, an edit or a regeneration, with the branch behind it. */
export interface Alternative {
  /** The version's message id; `thread.switchTo(id)` makes its branch current. */
  id: string;
  /** Its place among the versions, in the order they were made (0: the original). */
  index: number;
  /** Whether it is on the current branch. */
  current: boolean;
  role: Message["role"];
  /** The start of its text, at most 120 characters. */
  preview: string;
  /** How many messages the branch behind it has (this version and everything before and after it). */
  length: number;
  /** Where that branch ends: `thread.at(end)` reads it. */
  end: LogPoint;
}

/** A read-only thread at a point in the past. */
export interface ThreadSnapshot {
  readonly threadId: string;
  readonly point: LogPoint;
  messages(options?: ReadOptions): Promise<Message[]>;
  view(options?: ViewOptions): Promise<Message[]>;
}

/** A change of a thread's metadata or context, as `thread.update` takes it. */
export interface ThreadUpdate {
  metadata?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /** A new owner, or `null` to clear it (local threads). */
  owner?: string | null;
  /** A new title, or `null` to clear it (local threads). */
  title?: string | null;
  /** When the thread expires (a `Date`, an ISO string or epoch ms), or `null` to clear it (local threads). */
  expiresAt?: ExpiryInput | null;
}

/** A thread bound to its behaviour. `JSON.stringify(thread)` gives its state. */
export interface Thread<State extends ThreadState = ThreadState> {
  readonly specificationVersion: "v1";
  readonly id: string;
  readonly type: string;
  readonly capabilities: ThreadCapabilities;
  /** The revision last seen by this object; grows with each change. */
  readonly revision: number | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly context: Readonly<Record<string, unknown>>;

  /** Appends one message or many, atomically; returns them as stored. Re-sent equal messages are no-ops. */
  append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]>;
  messages(options?: ReadOptions): Promise<Message[]>;
  /**
   * One message by id, or undefined; local threads find it in O(log n) or better. Optional: types that
   * cannot look a message up by id do not have it.
   */
  message?(id: string): Promise<Message | undefined>;
  /** The newest messages that fit the budget, tool calls kept whole, in chronological order. */
  view(options?: ViewOptions): Promise<Message[]>;
  /**
   * A new thread continuing this one's messages. `{ ifRevision }`: only while this thread is still at that
   * revision, else `ConcurrencyError` and nothing is created (types that cannot check it refuse the option).
   */
  fork(options?: ForkOptions): Promise<Thread>;
  /** `{ ifRevision }`: only at that revision, else `ConcurrencyError` and nothing is written. */
  checkpoint(label?: string, options?: UpdateOptions): Promise<Checkpoint>;
  /**
   * Makes a checkpoint (or the point after a message) the end of the thread; the abandoned part stays in
   * history. Local threads resolve to the messages `{ append }` added, as stored; workflows to a report of
   * what was and was not rolled back.
   */
  rollback(target: PointTarget, options?: RollbackOptions): Promise<unknown>;
  /** A read-only view of the thread at a checkpoint, after a message, or at a point from `history()`. */
  at(target: PointTarget): Promise<ThreadSnapshot>;
  history(): Promise<HistoryEvent[]>;
  /**
   * Continues the thread from before `messageId` with `replacement` in its place, in one atomic change; the
   * old branch (that message and what followed) stays an alternative. Resolves to the replacement as stored.
   * Optional: local threads have it.
   */
  edit?(messageId: string, replacement: MessageInput, options?: EditOptions): Promise<Message>;
  /**
   * Drops the assistant message `messageId` and what followed from the current branch, keeping them as an
   * alternative; `reply` (or a later append) is the new answer. Resolves to the reply as stored.
   */
  regenerate?(messageId: string, reply?: MessageInput, options?: EditOptions): Promise<Message | undefined>;
  /** The versions of the message at `messageId`'s position, in the order they were made. */
  alternatives?(messageId: string): Promise<Alternative[]>;
  /** Makes the branch of a version current again; the branch left becomes an alternative. Resolves to that version. */
  switchTo?(alternativeId: string, options?: SwitchOptions): Promise<Message>;
  /** Replaces metadata and/or context state. */
  update(patch: ThreadUpdate, options?: UpdateOptions): Promise<void>;
  /** Reads the latest revision, metadata and context from where the thread lives. */
  refresh(): Promise<void>;
  toJSON(): State;
  /**
   * Deletes the thread. `{ ifRevision }`: only while it is still at that revision, checked in the same atomic
   * step as the delete, else `ConcurrencyError` and nothing is deleted; types that cannot check it refuse it.
   */
  delete(options?: UpdateOptions): Promise<void>;
}
