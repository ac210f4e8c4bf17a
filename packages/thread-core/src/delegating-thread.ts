import type { Message, MessageInput } from "./message.js";
import type {
  AppendOptions,
  Checkpoint,
  ForkOptions,
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
} from "./thread.js";
import type { ThreadState } from "./thread-type.js";

/** The state a thread's `toJSON()` gives. */
type DelegateState<Subject extends Thread> = Subject extends Thread<infer State> ? State : ThreadState;

/**
 * A thread that hands every member of the `Thread` contract to another thread, its `delegate`. A wrapper
 * (one that guards, fences or queues a thread's writes) extends it and overrides only what it changes:
 *
 * ```ts
 * class ReadOnlyThread extends DelegatingThread {
 *   override append(): Promise<Message[]> { throw new Error("read-only"); }
 * }
 * ```
 *
 * `message(id)` is optional in the contract: the wrapper has it exactly when the thread it was made with has
 * it, so callers that test for it see the wrapped type's answer. A subclass changes how it reads through
 * `lookUpMessage`.
 */
export class DelegatingThread<Delegate extends Thread = Thread> implements Thread<DelegateState<Delegate>> {
  readonly specificationVersion = "v1";
  /**
   * One message by id: there when the delegate's type looks messages up, absent otherwise. Declared only
   * (no field), so a wrapper of a thread without it has no such property at all.
   */
  declare readonly message?: (id: string) => Promise<Message | undefined>;
  #delegate: Delegate;

  constructor(delegate: Delegate) {
    this.#delegate = delegate;
    // An own property rather than a method, so that its absence says what it says on the delegate.
    if (typeof delegate.message === "function") this.message = (id) => this.lookUpMessage(id);
  }

  /** The thread every member not overridden goes to. */
  protected get delegate(): Delegate {
    return this.#delegate;
  }

  /** Makes `next` the delegate from now on: a wrapper that reloads its thread (a newer saved state) swaps it. */
  protected set delegate(next: Delegate) {
    this.#delegate = next;
  }

  /** What `message(id)` does; called only when the thread had `message` when this wrapper was made. */
  protected lookUpMessage(id: string): Promise<Message | undefined> {
    const delegate = this.#delegate;
    return (delegate.message as (id: string) => Promise<Message | undefined>).call(delegate, id);
  }

  get id(): string {
    return this.#delegate.id;
  }
  get type(): string {
    return this.#delegate.type;
  }
  get capabilities(): ThreadCapabilities {
    return this.#delegate.capabilities;
  }
  get revision(): Delegate["revision"] {
    return this.#delegate.revision;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#delegate.metadata;
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.#delegate.context;
  }

  append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]> {
    return this.#delegate.append(input, options);
  }
  messages(options?: ReadOptions): Promise<Message[]> {
    return this.#delegate.messages(options);
  }
  view(options?: ViewOptions): Promise<Message[]> {
    return this.#delegate.view(options);
  }
  fork(options?: ForkOptions): Promise<Thread> {
    return this.#delegate.fork(options);
  }
  checkpoint(label?: string, options?: UpdateOptions): Promise<Checkpoint> {
    return this.#delegate.checkpoint(label, options);
  }
  rollback(target: PointTarget, options?: RollbackOptions): Promise<unknown> {
    return this.#delegate.rollback(target, options);
  }
  at(target: PointTarget): Promise<ThreadSnapshot> {
    return this.#delegate.at(target);
  }
  history(): Promise<HistoryEvent[]> {
    return this.#delegate.history();
  }
  update(patch: ThreadUpdate, options?: UpdateOptions): Promise<void> {
    return this.#delegate.update(patch, options);
  }
  refresh(): Promise<void> {
    return this.#delegate.refresh();
  }
  toJSON(): DelegateState<Delegate> {
    return this.#delegate.toJSON() as DelegateState<Delegate>;
  }
  delete(options?: UpdateOptions): Promise<void> {
    return this.#delegate.delete(options);
  }
}
