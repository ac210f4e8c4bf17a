import { assertCheckpointLabel } from "../checkpoint-label.js";
import {
  ConcurrencyError,
  PointNotFoundError,
  ThreadNotFoundError,
  UnknownThreadTypeError,
  UnsupportedOperationError,
} from "../errors.js";
import { assertThreadId, newSortableId } from "../ids.js";
import { withIfRevision } from "../if-revision.js";
import { carriesMarker } from "../instance-marker.js";
import { cloneJson, type JsonValue, jsonObjectField } from "../json.js";
import type { Message, MessageInput } from "../message.js";
import { OpaqueThreadState } from "../opaque-state.js";
import { objectArgument } from "../option-value.js";
import { checkPointTarget } from "../point-target.js";
import { SKEIN_TYPE_PACKAGES } from "../registry.js";
import type { ThreadStore } from "../store/store.js";
import type {
  AppendOptions,
  Checkpoint,
  HistoryEvent,
  PointTarget,
  ReadOptions,
  RollbackOptions,
  Thread,
  ThreadCapabilities,
  ThreadSnapshot,
  ThreadUpdate,
  UpdateOptions,
  ViewOptions,
} from "../thread.js";
import { START } from "../thread.js";
import type { ThreadState } from "../thread-type.js";
import type { SubThread } from "./sub-thread.js";
import {
  checkpointedThread,
  fenceOf,
  restoreCheckpoint,
  takeCheckpoint,
  targetId,
  type WorkflowRollbackReport,
} from "./workflow-checkpoints.js";
import { WorkflowPartlyDeletedError } from "./workflow-delete-error.js";
import { endStep, enqueueStep, startStep } from "./workflow-execution.js";
import { discardForks, forkParts, planFork, type WorkflowForkOptions } from "./workflow-fork.js";
import { type WorkflowSnapshot, workflowSnapshot } from "./workflow-snapshot.js";
import type {
  ExecutionState,
  WorkflowCheckpoint,
  WorkflowData,
  WorkflowState,
  WorkflowStep,
} from "./workflow-state.js";

/** The key of a workflow's main sub-thread: the one a runner acts on. */
export const MAIN_THREAD = "main";

export type { SubThread } from "./sub-thread.js";

/** What `WorkflowThread.isInstance` looks for; `Symbol.for`, so every installed copy of thread-core agrees. */
const workflowThreadMarker = Symbol.for("skein.thread-core.WorkflowThread");

/**
 * A multi-agent workflow: sub-threads of any type by key, plus execution state (steps taken, running,
 * queued), saved as one state document with optimistic revisions. Sub-threads keep their own logs, so
 * agents append to them concurrently without touching the workflow's revision. Tell one apart with
 * `WorkflowThread.isInstance`.
 */
export class WorkflowThread implements Thread<WorkflowState> {
  readonly specificationVersion = "v1";
  readonly [workflowThreadMarker] = true;
  readonly type = "workflow";
  readonly capabilities: ThreadCapabilities = Object.freeze({
    fork: "copy",
    checkpoints: true,
    rollback: true,
    timeTravel: true,
    views: true,
    revisions: true,
  });
  #state: WorkflowData;
  #threads: Map<string, SubThread>;
  /**
   * Whether `store` has held this workflow: read from it, or saved there by this object. Then a save the
   * store refuses because it holds no such workflow means it was deleted, not that it is new there.
   */
  #stored: boolean;

  constructor(
    readonly store: ThreadStore,
    state: WorkflowData,
    threads: Map<string, SubThread>,
    stored = false,
  ) {
    this.#state = state;
    this.#threads = threads;
    this.#stored = stored;
  }

  /**
   * Whether `value` is a workflow thread: `instanceof` that also holds across duplicate installs of
   * thread-core.
   * @example if (WorkflowThread.isInstance(thread)) for (const key of thread.keys()) …
   */
  static isInstance(value: unknown): value is WorkflowThread {
    return carriesMarker(value, workflowThreadMarker);
  }

  get id(): string {
    return this.#state.id;
  }
  get revision(): number {
    return this.#state.revision;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#state.metadata;
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.#state.context;
  }
  /** Steps taken, running (`current`) and queued (`next`): where a resumed workflow picks up. */
  get execution(): Readonly<ExecutionState> {
    return this.#state.execution;
  }

  /** The keys of the sub-threads. */
  keys(): string[] {
    return [...this.#threads.keys()];
  }

  /** The sub-thread under `key`; `UnknownThreadTypeError` if its adapter is not installed here. */
  thread(key = MAIN_THREAD): Thread {
    const sub = this.#threads.get(key);
    if (!sub) throw new ThreadNotFoundError(`${this.id}#${key}`);
    if (OpaqueThreadState.isInstance(sub))
      throw new UnknownThreadTypeError(sub.$type, SKEIN_TYPE_PACKAGES[sub.$type]);
    return sub;
  }

  /** Creates a sub-thread (a local thread of the store, or of `type` through its adapter) and saves the workflow. */
  async addThread(
    key: string,
    options: { type?: string; options?: Record<string, unknown> } = {},
  ): Promise<Thread> {
    if (this.#threads.has(key))
      throw new UnsupportedOperationError("workflow", "two sub-threads under one key", `"${key}" exists.`);
    const metadata = { workflow: this.id, key };
    const thread = options.type
      ? await this.store.create(options.type, { metadata, ...options.options })
      : await this.store.create({ metadata });
    await this.#change(() => this.#threads.set(key, thread));
    return thread;
  }

  /** Takes a sub-thread out of the workflow; `{ delete: true }` also deletes it where it lives. */
  async removeThread(key: string, options: { delete?: boolean } = {}): Promise<void> {
    const sub = this.#threads.get(key);
    if (!sub) throw new ThreadNotFoundError(`${this.id}#${key}`);
    await this.#change(() => this.#threads.delete(key));
    if (options.delete && !OpaqueThreadState.isInstance(sub)) await sub.delete();
  }

  async enqueue(
    name: string,
    options: { input?: JsonValue; threadKey?: string } = {},
  ): Promise<WorkflowStep> {
    return this.#step(enqueueStep(this.#state.execution, name, options));
  }

  async start(stepId?: string): Promise<WorkflowStep> {
    return this.#step(startStep(this.#state.execution, stepId));
  }

  async complete(stepId: string, output?: JsonValue): Promise<WorkflowStep> {
    return this.#step(endStep(this.#state.execution, stepId, { status: "completed", output }));
  }

  async fail(stepId: string, error: string): Promise<WorkflowStep> {
    return this.#step(endStep(this.#state.execution, stepId, { status: "failed", error }));
  }

  append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]> {
    return this.thread().append(input, options);
  }
  messages(options?: ReadOptions): Promise<Message[]> {
    return this.thread().messages(options);
  }
  /** A message of the main sub-thread, when its type looks messages up by id. */
  message(id: string): Promise<Message | undefined> {
    const main = this.thread();
    if (!main.message) throw new UnsupportedOperationError(main.type, "message(id)");
    return main.message(id);
  }
  view(options?: ViewOptions): Promise<Message[]> {
    return this.thread().view(options);
  }

  /**
   * A new workflow with a fork of every sub-thread and a copy of the execution state: as they are now, as
   * they were at a workflow checkpoint (`{ at: checkpoint }`), or with one sub-thread ending after a message
   * (`{ at: { thread: "planner", message: id } }`). A point the workflow does not have is a
   * `PointNotFoundError`; a sub-thread that cannot be forked there is an `UnsupportedOperationError`
   * naming its type. Either way nothing is created.
   */
  async fork(options?: WorkflowForkOptions): Promise<WorkflowThread> {
    options = withIfRevision("workflow.fork", options, 'fork({ at: "cp-…" })');
    const at = options.at;
    // `{ thread, message }` names a sub-thread's message; any other `at` is a target as for every thread.
    const subThreadMessage = typeof at === "object" && at !== null && "thread" in at && "message" in at;
    if (at !== undefined && !subThreadMessage) checkPointTarget("workflow.fork", "at", at);
    const metadata = options.metadata === undefined ? {} : jsonObjectField(options.metadata, "metadata");
    const id = options.id ?? newSortableId();
    assertThreadId(id);
    const starts = await this.#fenceStart(options.ifRevision);
    const saved = options.at === undefined ? undefined : await this.#findCheckpoint(options.at);
    const plan = await planFork(this, this.#threads, saved, options.at);
    const threads = await forkParts(plan, this.id, id, starts);
    const state = {
      ...cloneJson(this.#state),
      id,
      createdAt: new Date().toISOString(),
      revision: 0,
      metadata: { ...cloneJson(this.#state.metadata), ...metadata },
      execution: plan.execution,
      checkpoints: [],
      events: [],
    } as WorkflowData;
    const fork = new WorkflowThread(this.store, state, threads);
    try {
      await fork.save();
    } catch (error) {
      // The id is taken, or the store failed: the sub-thread forks made for it must not be left behind.
      await discardForks(threads.values());
      throw error;
    }
    return fork;
  }

  /**
   * Checkpoints the execution state and every sub-thread that keeps checkpoints. `{ ifRevision }` fences
   * it as `rollback` does: refused before any sub-thread is checkpointed, each sub-thread's checkpoint
   * checked at its own revision, and the workflow's commit refused when a sub-thread moved after its step.
   */
  async checkpoint(label?: string, options?: UpdateOptions): Promise<Checkpoint> {
    assertCheckpointLabel(label);
    options = withIfRevision("workflow.checkpoint", options, 'checkpoint("label", { ifRevision: 3 })');
    const starts = await this.#fenceStart(options.ifRevision);
    const { workflowCheckpoint, checkpoint, event } = await takeCheckpoint(
      this,
      this.#threads,
      label,
      starts,
    );
    await this.#change(
      (state) => {
        state.checkpoints = [...state.checkpoints, workflowCheckpoint];
        state.events = [...state.events, event];
      },
      options.ifRevision,
      () => this.#fenceHeld(this.#threads, starts),
    );
    return checkpoint;
  }

  /**
   * Restores the execution state and rolls back every sub-thread to the checkpoint; the report names each
   * sub-thread that could not be rolled back and why. Nothing is skipped silently. Only the workflow's own
   * checkpoints are targets: `"start"` is an `UnsupportedOperationError`, anything else `PointNotFoundError`.
   *
   * `{ ifRevision }` refuses before anything moves: the workflow must still be at that revision in the
   * store, and every sub-thread it rolls back (that counts revisions) at the revision this handle last saw
   * of it, else `ConcurrencyError`. Each sub-thread's rollback then carries that revision as its own
   * `ifRevision`, and the workflow's commit the workflow's, so a writer that gets in after the check is
   * refused at the thread it changed; sub-threads moved before that refusal stay moved. Right before the
   * workflow's commit, each fenced sub-thread is read again: one another writer moved after its rollback
   * refuses the commit too (a write landing between that read and the commit is not seen).
   */
  async rollback(target: PointTarget, options?: RollbackOptions): Promise<WorkflowRollbackReport> {
    checkPointTarget("workflow.rollback", "target", target);
    options = withIfRevision("workflow.rollback", options, "rollback(checkpoint, { ifRevision: 3 })");
    if (options.append !== undefined || options.operationId !== undefined) {
      throw new UnsupportedOperationError(
        "workflow",
        "rollback with append or operationId",
        "roll back the workflow, then append to its sub-thread (workflow.thread(key))",
      );
    }
    // The workflow's own points are its checkpoints: it keeps none from before its sub-threads were made.
    if (target === START) {
      throw new UnsupportedOperationError(
        "workflow",
        'rollback to "start"',
        'roll back to a workflow checkpoint, or roll a sub-thread back (workflow.thread(key).rollback("start")).',
      );
    }
    const starts = await this.#fenceStart(options.ifRevision);
    const { report, execution, threads, event } = await restoreCheckpoint(
      this,
      this.#state.checkpoints,
      this.#threads,
      target,
      starts,
    );
    await this.#change(
      (state) => {
        state.execution = execution;
        state.events = [...state.events, event];
        this.#threads = threads;
      },
      options.ifRevision,
      () => this.#fenceHeld(threads, starts),
    );
    return report;
  }

  /**
   * The workflow at one of its checkpoints: `execution` and every sub-thread (`thread(key)`) as they were
   * there, read-only. Any other target (a message id, a point or a checkpoint of `main`) reads `main` at
   * that point.
   */
  async at(target: Checkpoint): Promise<WorkflowSnapshot>;
  async at(target: PointTarget): Promise<ThreadSnapshot>;
  async at(target: PointTarget): Promise<ThreadSnapshot> {
    checkPointTarget("workflow.at", "target", target);
    const saved = await this.#findCheckpoint(target);
    if (saved) {
      return workflowSnapshot(this.id, saved, (key, checkpoint) =>
        checkpointedThread(this.store, this.#threads, key, checkpoint),
      );
    }
    // A checkpoint object names a workflow checkpoint, or one taken on the main sub-thread (read there);
    // any other is not found.
    if (
      typeof target !== "string" &&
      "id" in target &&
      target.threadId !== this.#threads.get(MAIN_THREAD)?.id
    ) {
      throw new PointNotFoundError(this.id, target.id);
    }
    return this.thread().at(target);
  }

  async history(): Promise<HistoryEvent[]> {
    return cloneJson(this.#state.events);
  }

  async update(patch: ThreadUpdate, options?: AppendOptions): Promise<void> {
    options = withIfRevision("workflow.update", options, "update(patch, { ifRevision: 3 })");
    objectArgument("workflow.update", "patch", patch, "an object with metadata and/or context");
    const metadata = patch.metadata === undefined ? undefined : jsonObjectField(patch.metadata, "metadata");
    const context = patch.context === undefined ? undefined : jsonObjectField(patch.context, "context");
    await this.#change((state) => {
      if (metadata) state.metadata = metadata as WorkflowState["metadata"];
      if (context) state.context = context as WorkflowState["context"];
    }, options.ifRevision);
  }

  async refresh(): Promise<void> {
    const fresh = await this.store.get(this.id);
    if (!(fresh instanceof WorkflowThread)) throw new ThreadNotFoundError(this.id);
    this.#state = fresh.#state;
    this.#threads = fresh.#threads;
    this.#stored = true;
  }

  toJSON(): WorkflowState {
    const threads: Record<string, ThreadState> = {};
    for (const [key, sub] of this.#threads) threads[key] = sub.toJSON() as ThreadState;
    return { ...cloneJson(this.#state), threads } as WorkflowState;
  }

  /**
   * Deletes the workflow's state; local sub-threads of its store go with it, remote ones are left as they
   * are. `{ ifRevision }`: refused before anything is deleted unless the workflow is at that revision and
   * its local sub-threads at the revisions this handle last saw. The sub-threads are then deleted first,
   * `main` first, each checked by the store at its own revision as it is deleted, and the workflow's state
   * last, checked at `ifRevision`: a write to a sub-thread never moves the workflow's revision, so only a
   * sub-thread's own delete can see it. The first refusal stops the delete: a `ConcurrencyError` when
   * nothing was deleted yet, else a `WorkflowPartlyDeletedError` naming the sub-threads already deleted
   * (the workflow's state is still there).
   */
  async delete(options?: UpdateOptions): Promise<void> {
    options = withIfRevision("workflow.delete", options, "delete({ ifRevision: 3 })");
    const local = [...this.#threads].filter(
      (entry): entry is [string, Thread] =>
        !OpaqueThreadState.isInstance(entry[1]) && entry[1].type === this.store.nativeType,
    );
    if (options.ifRevision === undefined) {
      for (const [, sub] of local) await sub.delete();
      await this.store.delete(this.id);
      return;
    }
    const starts = await this.#fenceStart(options.ifRevision);
    // `main` first: a new holder's turn writes there, so its write most often stops the delete before any.
    local.sort(([a], [b]) => Number(b === MAIN_THREAD) - Number(a === MAIN_THREAD));
    const deleted: string[] = [];
    const refused = (error: unknown): unknown =>
      ConcurrencyError.isInstance(error) && deleted.length > 0
        ? new WorkflowPartlyDeletedError(this.id, deleted, error)
        : error;
    try {
      for (const [key, sub] of local) {
        await sub.delete(fenceOf(sub, starts));
        deleted.push(key);
      }
      await this.store.delete(this.id, { ifRevision: options.ifRevision });
    } catch (error) {
      throw refused(error);
    }
  }

  /**
   * The workflow checkpoint a target names. A checkpoint of this workflow that this handle has not seen
   * was taken through another handle since this one read the workflow: it is looked up once in the stored
   * state. Strings are only looked up here, as they may as well be message ids of `main`.
   */
  async #findCheckpoint(target: unknown): Promise<WorkflowCheckpoint | undefined> {
    const id = targetId(target);
    const known = this.#state.checkpoints.find((checkpoint) => checkpoint.id === id);
    if (known || typeof target !== "object" || (target as Checkpoint).threadId !== this.id) return known;
    const stored = await this.store.get(this.id).catch((error: unknown) => {
      if (ThreadNotFoundError.isInstance(error)) return undefined;
      throw error;
    });
    return stored instanceof WorkflowThread
      ? stored.#state.checkpoints.find((checkpoint) => checkpoint.id === id)
      : undefined;
  }

  /**
   * The fence of a change made with `ifRevision`, checked before anything is written: the workflow must
   * be at `ifRevision` here and in the store, and each sub-thread that counts revisions at the revision
   * this handle last saw of it (read again now). Gives those revisions by sub-thread id, for the change
   * to carry as each sub-thread's own `ifRevision`; undefined without `ifRevision`.
   */
  async #fenceStart(ifRevision: number | undefined): Promise<Map<string, number> | undefined> {
    if (ifRevision === undefined) return undefined;
    if (ifRevision !== this.#state.revision)
      throw new ConcurrencyError(this.id, ifRevision, this.#state.revision);
    const stored = await this.store.getState(this.id);
    const revision = typeof stored.revision === "number" ? stored.revision : 0;
    if (revision !== ifRevision) throw new ConcurrencyError(this.id, ifRevision, revision);
    const starts = new Map<string, number>();
    for (const sub of this.#threads.values()) {
      if (OpaqueThreadState.isInstance(sub) || !sub.capabilities.revisions) continue;
      const start = sub.revision;
      if (start === undefined) continue;
      // Read through a handle of its own: this handle's sub-thread keeps the revision it last saw, so a
      // refused change leaves it as stale as it was, and a retry on it is refused too.
      const stored = (await this.store.get(sub.id)).revision ?? 0;
      if (stored !== start) throw new ConcurrencyError(sub.id, start, stored);
      starts.set(sub.id, start);
    }
    return starts;
  }

  /**
   * Checked right before a fenced change's own commit: every sub-thread the change fenced (`starts`, by id)
   * is still at the revision the change left it at, so a write to a sub-thread that landed after its step,
   * which never moves the workflow's revision, refuses the workflow's commit (`ConcurrencyError`). A write
   * that lands between this read and the commit is not seen: there is no transaction across threads.
   */
  async #fenceHeld(
    threads: ReadonlyMap<string, SubThread>,
    starts: ReadonlyMap<string, number> | undefined,
  ): Promise<void> {
    if (starts === undefined) return;
    for (const sub of threads.values()) {
      if (OpaqueThreadState.isInstance(sub) || !starts.has(sub.id)) continue;
      const left = sub.revision ?? 0;
      const stored = (await this.store.get(sub.id)).revision ?? 0;
      if (stored !== left) throw new ConcurrencyError(sub.id, left, stored);
    }
  }

  /** Writes the workflow's state if nobody else has since it was read (else `ConcurrencyError`). */
  async save(): Promise<void> {
    await this.#change(() => {});
  }

  async #step(result: { execution: ExecutionState; step: WorkflowStep }): Promise<WorkflowStep> {
    await this.#change((state) => {
      state.execution = result.execution;
    });
    return result.step;
  }

  /**
   * Saves `next` as the revision after `revision`, inserting it if this store never held the workflow (read
   * from JSON); `ThreadNotFoundError` if the store held it and no longer does (deleted meanwhile).
   */
  async #saveAs(next: WorkflowData, revision: number): Promise<void> {
    this.#state = { ...next, revision: revision + 1 };
    try {
      await this.store.save(this, { ifRevision: revision });
    } catch (error) {
      const absent = ConcurrencyError.isInstance(error) && error.actualRevision === 0 && revision > 0;
      if (!absent) throw error;
      // Read from this store or saved there before: it was deleted, and a stale handle must not bring it back.
      if (this.#stored) throw new ThreadNotFoundError(this.id, { cause: error });
      // A workflow read from JSON into a store that does not hold it yet is new there: its first save inserts.
      this.#state = { ...next, revision: 1 };
      await this.store.save(this, { ifRevision: 0 });
    }
    this.#stored = true;
  }

  /**
   * Applies a change to a copy of the state and saves it as the next revision, if the stored one is still
   * the revision this object read; on failure the workflow stays as it was.
   */
  async #change(
    change: (state: WorkflowData) => void,
    ifRevision?: number,
    check?: () => Promise<void>,
  ): Promise<void> {
    const before = { state: this.#state, threads: new Map(this.#threads) };
    if (ifRevision !== undefined && ifRevision !== before.state.revision) {
      throw new ConcurrencyError(this.id, ifRevision, before.state.revision);
    }
    await check?.();
    const next = cloneJson(this.#state);
    change(next);
    try {
      await this.#saveAs(next, before.state.revision);
    } catch (error) {
      this.#state = before.state;
      this.#threads = before.threads;
      throw error;
    }
  }
}
