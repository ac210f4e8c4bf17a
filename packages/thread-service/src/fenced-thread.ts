import {
  type AppendOptions,
  type Checkpoint,
  ConcurrencyError,
  DelegatingThread,
  type ForkOptions,
  type HistoryEvent,
  type Message,
  type MessageInput,
  type PointTarget,
  type ReadOptions,
  type RollbackOptions,
  type Thread,
  ThreadNotFoundError,
  type ThreadSnapshot,
  type UpdateOptions,
  type ViewOptions,
  WorkflowThread,
} from "@skein/thread-core";
import type { ThreadUpdate } from "@skein/thread-core/driver";
import { LeaseLostError } from "./errors.js";
import { leaseGuarded } from "./lease-guarded-thread.js";
import { isConcurrencyError } from "./optimistic-update.js";
import type { HeldLease } from "./thread-lease.js";

/** Conflicts with writers that do not hold the lease (pause, attach, …) are rare; past this many, give up. */
const MAX_ATTEMPTS = 100;

/**
 * The thread as a leased run writes to it: every append, update, rollback, checkpoint, fork and delete
 * carries `ifRevision`, the revision this run last saw while it held the lease, so the store itself
 * refuses the write, in the same commit, once anyone else has written. Checking the lease and then writing is two steps, and a process
 * frozen between them would write after another instance took over; with the revision in the commit,
 * the check and the write are one.
 *
 * The first fence is the revision the run read after taking the lease. It is valid because every write
 * first checks `lease.valid()`, which is true only before any other instance can have taken the lease, so
 * the read it follows came before any write of a new holder. After each of its own writes the fence
 * moves to the revision that write made. When a write is refused, the thread is read again and the lease
 * confirmed in the store (holder and revision); only then does the fence move to the new revision, so a
 * change by a writer outside the lease (pause, attach) costs a retry, while a new holder's turn ends the
 * run with `LeaseLostError` and nothing written. A thread that is gone when it is read again (deleted since
 * the run's last write, or part-deleted by its own refused workflow delete) ends the run the same way.
 *
 * The store checks the thread's revision, not the lease: what refuses a stale run once another instance has
 * taken its lease over, before that instance writes anything of its own turn, is the commit that instance
 * makes first (`fenceOffFormerHolder`). A stale write that lands before that commit comes ahead of the new
 * turn, which reads it.
 *
 * Operations run one at a time, so the revision the fence reads after a write is that write's own, never
 * one a concurrent read brought in.
 *
 * A write lands on the thread that keeps the revision it is checked against: a workflow's `append` goes to
 * its main sub-thread, whose revision is its own counter, so appends are fenced there (a fence of the
 * sub-thread sharing the lease); the workflow's own `update` and `rollback` are fenced at the workflow's
 * revision. Every sub-thread a fenced thread hands out (`thread(key)` through `inner`) is fenced the same way.
 *
 * `checkpoint`, `fork` and `delete` are fenced the same way. A fork writes nothing to this thread: its
 * fence refuses a fork of a thread another writer has moved. A delete at the fence needs a type that checks
 * the revision as it deletes (local threads of memory, fs, redis and postgres stores, workflows); others
 * (`openai.responses`, `a2a`) refuse it with `UnsupportedOperationError`.
 *
 * What the fence cannot cover: threads without revisions (remote conversations). Their writes are refused
 * when the lease has run out by this process's clock, just before they are sent; a process frozen after that
 * check may still send them.
 */
export class FencedThread extends DelegatingThread {
  readonly #lease: HeldLease;
  readonly #messageId: string;
  /** The revision the next write must find; undefined for a thread without revisions. */
  #fence: number | undefined;
  /** Shared with the fences of its sub-threads: a read of the workflow reads its main sub-thread too. */
  readonly #turns: Turns;
  #inner: Thread | undefined;
  /** The fences of the sub-threads this thread handed out, by sub-thread id (a workflow has a few). */
  readonly #subFences = new Map<string, FencedThread>();
  /**
   * For a thread object kept from an earlier run under the same lease: when someone wrote the thread before
   * this fence's first write, the write is not retried, and this error is thrown instead, so the caller
   * reads the thread again and checks it before anything is written.
   */
  readonly #movedBeforeFirstWrite: (() => unknown) | undefined;
  #written = false;

  constructor(
    thread: Thread,
    lease: HeldLease,
    messageId: string,
    turns: Turns = { tail: Promise.resolve() },
    movedBeforeFirstWrite?: () => unknown,
  ) {
    super(thread);
    this.#movedBeforeFirstWrite = movedBeforeFirstWrite;
    this.#lease = lease;
    this.#messageId = messageId;
    this.#turns = turns;
    this.#fence = thread.capabilities.revisions ? thread.revision : undefined;
  }

  /** One message by id, read in turn (present when the thread's type looks messages up). */
  protected override lookUpMessage(id: string): Promise<Message | undefined> {
    return this.#inTurn(() => super.lookUpMessage(id));
  }

  /**
   * The fenced thread, for runners that need its type's own behaviour (thread-core's `runTarget` finds it
   * here): every call through it checks the lease first, and its writes are this fence's (`leaseGuarded`).
   */
  get inner(): Thread {
    this.#inner ??= leaseGuarded(
      this.delegate,
      this,
      () => this.#assertHeld(),
      (sub) => this.#fenceOf(sub),
    );
    return this.#inner;
  }

  override append(input: MessageInput | MessageInput[], options: AppendOptions = {}): Promise<Message[]> {
    // A workflow appends to its main sub-thread: the fence is that thread's revision, not the workflow's.
    let main: FencedThread | undefined;
    try {
      main = this.#mainFence();
    } catch (error) {
      return Promise.reject(error);
    }
    if (main) return main.append(input, options);
    return this.#fenced(options.ifRevision, (ifRevision) =>
      this.delegate.append(input, { ...options, ...ifRevision }),
    );
  }

  override update(patch: ThreadUpdate, options: AppendOptions = {}): Promise<void> {
    return this.#fenced(options.ifRevision, (ifRevision) =>
      this.delegate.update(patch, { ...options, ...ifRevision }),
    );
  }

  override rollback(target: PointTarget, options: RollbackOptions = {}): Promise<unknown> {
    return this.#fenced(options.ifRevision, (ifRevision) =>
      this.delegate.rollback(target, { ...options, ...ifRevision }),
    );
  }

  override checkpoint(label?: string, options: UpdateOptions = {}): Promise<Checkpoint> {
    return this.#fenced(options.ifRevision, (ifRevision) =>
      this.delegate.checkpoint(label, { ...options, ...ifRevision }),
    );
  }

  /** A fork writes nothing to this thread; fenced, it is refused once another writer has moved it. */
  override fork(options: ForkOptions = {}): Promise<Thread> {
    return this.#fenced(options.ifRevision, (ifRevision) =>
      this.delegate.fork({ ...options, ...ifRevision }),
    );
  }

  /**
   * Deleted only at the fence, checked by the store as it deletes (memory, fs, redis and postgres stores);
   * a thread whose type cannot check a revision on delete (remote threads with revisions: `openai.responses`,
   * `a2a`) refuses it with `UnsupportedOperationError` and is not deleted.
   */
  override delete(options: UpdateOptions = {}): Promise<void> {
    return this.#fenced(options.ifRevision, (ifRevision) =>
      this.delegate.delete({ ...options, ...ifRevision }),
    );
  }

  override messages(options?: ReadOptions): Promise<Message[]> {
    return this.#inTurn(() => this.delegate.messages(options));
  }

  override view(options?: ViewOptions): Promise<Message[]> {
    return this.#inTurn(() => this.delegate.view(options));
  }

  override at(target: PointTarget): Promise<ThreadSnapshot> {
    return this.#inTurn(() => this.delegate.at(target));
  }

  override history(): Promise<HistoryEvent[]> {
    return this.#inTurn(() => this.delegate.history());
  }

  override refresh(): Promise<void> {
    return this.#inTurn(() => this.delegate.refresh());
  }

  /**
   * Writes at the fence. `requested` is the caller's own `ifRevision`: honoured as given, after the fence
   * has been brought up to date, so the caller still gets `ConcurrencyError` when it is stale.
   */
  #fenced<T>(
    requested: number | undefined,
    write: (ifRevision: { ifRevision?: number }) => Promise<T>,
  ): Promise<T> {
    return this.#inTurn(async () => {
      this.#assertHeld();
      if (this.#fence === undefined) return write(requested === undefined ? {} : { ifRevision: requested });
      if (requested !== undefined && requested !== this.#fence) {
        await this.#confirm();
        if (requested !== this.#fence)
          throw new ConcurrencyError(this.id, requested, this.#fence, { source: "thread-service" });
      }
      for (let attempt = 1; ; attempt++) {
        try {
          const result = await write({ ifRevision: this.#fence });
          // One at a time: the revision the thread holds now is the one this write made.
          this.#fence = this.delegate.revision;
          this.#written = true;
          return result;
        } catch (error) {
          // A kept thread deleted since the previous run: read afresh, it is refused as a send to it would be.
          if (ThreadNotFoundError.isInstance(error)) this.#throwIfMovedBeforeFirstWrite();
          if (!isConcurrencyError(error)) await this.#explainRefusal(error);
          await this.#confirm();
          if (requested !== undefined || attempt >= MAX_ATTEMPTS) throw error;
        }
      }
    });
  }

  /** For a workflow, the fence of the main sub-thread its appends land on; undefined for any other thread. */
  #mainFence(): FencedThread | undefined {
    const workflow = this.delegate;
    if (!WorkflowThread.isInstance(workflow)) return undefined;
    this.#assertHeld();
    return this.#fenceOf(workflow.thread("main"));
  }

  /**
   * A sub-thread wrapped in a fence sharing this one's lease. One fence per sub-thread, so its revision
   * carries from write to write; its first fence is read now, while the lease is held (as this one's was).
   */
  #fenceOf(sub: Thread): FencedThread {
    if (sub instanceof FencedThread) return sub;
    let fence = this.#subFences.get(sub.id);
    if (!fence) {
      fence = new FencedThread(sub, this.#lease, this.#messageId, this.#turns);
      this.#subFences.set(sub.id, fence);
    }
    return fence;
  }

  /**
   * Someone else wrote: reads the thread again, then checks in the store that this instance still holds
   * the lease it held before. The read comes first, so a new holder's writes, which all follow its
   * takeover, cannot be in what the fence moves to.
   */
  async #confirm(): Promise<void> {
    this.#throwIfMovedBeforeFirstWrite();
    await this.delegate.refresh().catch((error: unknown) => {
      // Gone after a refused write: deleted since this run last saw it, by whoever holds the thread now
      // (or part-deleted by this run's own refused delete). Either way this run's turn is over.
      if (ThreadNotFoundError.isInstance(error)) this.#lost();
      throw error;
    });
    this.#assertHeld();
    if (!(await this.#lease.confirm())) this.#lost();
    this.#fence = this.delegate.revision;
  }

  #throwIfMovedBeforeFirstWrite(): void {
    if (!this.#written && this.#movedBeforeFirstWrite) throw this.#movedBeforeFirstWrite();
  }

  #assertHeld(): void {
    if (!this.#lease.valid()) this.#lost();
  }

  /**
   * Throws `error`, or `LeaseLostError` (caused by it) when the lease is gone as well: a store may refuse a
   * stale holder's write in its own words (the fs store's `LockLostError` after another writer took its
   * lock over), and what that means to the run is that another instance holds the thread now.
   */
  async #explainRefusal(error: unknown): Promise<never> {
    const held = await this.#lease.confirm().catch(() => true);
    if (!held) this.#lost(error);
    throw error;
  }

  #lost(cause?: unknown): never {
    this.#lease.markLost();
    throw new LeaseLostError(this.id, this.#messageId, cause === undefined ? undefined : { cause });
  }

  #inTurn<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#turns.tail.then(operation);
    this.#turns.tail = result.catch(() => {});
    return result;
  }
}

/** The one-at-a-time order of a fence's operations, shared by a thread's fence and its sub-threads' fences. */
interface Turns {
  tail: Promise<unknown>;
}
