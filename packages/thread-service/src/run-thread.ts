import type {
  AppendOptions,
  Checkpoint,
  ForkOptions,
  HistoryEvent,
  Message,
  MessageInput,
  PointTarget,
  ReadOptions,
  RollbackOptions,
  Thread,
  ThreadCapabilities,
  ThreadSnapshot,
  ThreadState,
  UpdateOptions,
  ViewOptions,
} from "@skein/thread-core";
import type { ThreadUpdate } from "@skein/thread-core/driver";

/**
 * The thread as one run sees it. Its `view()` shows the run's transient context (provider messages,
 * attachments) just before the new input, and every change it makes first asks `guard`, which throws once
 * the run is over (aborted, timed out, its lease lost): a runner that ignores its signal cannot write into
 * a thread that has moved on to the next message or to another process.
 */
export class RunThread implements Thread {
  readonly specificationVersion = "v1";
  /** One message by id: there when the thread's type looks messages up, absent as on the thread otherwise. */
  readonly message?: (id: string) => Promise<Message | undefined>;

  constructor(
    readonly inner: Thread,
    readonly transient: readonly Message[],
    readonly inputId: string,
    readonly guard: () => void,
  ) {
    const lookup = inner.message;
    if (lookup) this.message = (id) => lookup.call(inner, id);
  }

  get id(): string {
    return this.inner.id;
  }
  get type(): string {
    return this.inner.type;
  }
  get capabilities(): ThreadCapabilities {
    return this.inner.capabilities;
  }
  get revision(): number | undefined {
    return this.inner.revision;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.inner.metadata;
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.inner.context;
  }

  async append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]> {
    this.guard();
    return this.inner.append(input, options);
  }

  messages(options?: ReadOptions): Promise<Message[]> {
    return this.inner.messages(options);
  }

  async view(options?: ViewOptions): Promise<Message[]> {
    const view = await this.inner.view(options);
    if (this.transient.length === 0) return view;
    const at = view.findIndex((message) => message.id === this.inputId);
    const index = at === -1 ? view.length : at;
    return [...view.slice(0, index), ...this.transient, ...view.slice(index)];
  }

  async fork(options?: ForkOptions): Promise<Thread> {
    this.guard();
    return this.inner.fork(options);
  }

  async checkpoint(label?: string, options?: UpdateOptions): Promise<Checkpoint> {
    this.guard();
    return this.inner.checkpoint(label, options);
  }

  async rollback(target: PointTarget, options?: RollbackOptions): Promise<unknown> {
    this.guard();
    return this.inner.rollback(target, options);
  }

  at(target: PointTarget): Promise<ThreadSnapshot> {
    return this.inner.at(target);
  }

  history(): Promise<HistoryEvent[]> {
    return this.inner.history();
  }

  async update(patch: ThreadUpdate, options?: AppendOptions): Promise<void> {
    this.guard();
    return this.inner.update(patch, options);
  }

  refresh(): Promise<void> {
    return this.inner.refresh();
  }

  toJSON(): ThreadState {
    return this.inner.toJSON();
  }

  async delete(options?: UpdateOptions): Promise<void> {
    this.guard();
    return this.inner.delete(options);
  }
}
