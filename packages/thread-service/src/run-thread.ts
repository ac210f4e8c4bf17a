import {
  type AppendOptions,
  type Checkpoint,
  DelegatingThread,
  type ForkOptions,
  type Message,
  type MessageInput,
  type PointTarget,
  type RollbackOptions,
  type Thread,
  type UpdateOptions,
  type ViewOptions,
} from "@skein/thread-core";
import type { ThreadUpdate } from "@skein/thread-core/driver";

/**
 * The thread as one run sees it. Its `view()` shows the run's transient context (provider messages,
 * attachments) just before the new input, and every change it makes first asks `guard`, which throws once
 * the run is over (aborted, timed out, its lease lost): a runner that ignores its signal cannot write into
 * a thread that has moved on to the next message or to another process.
 */
export class RunThread extends DelegatingThread {
  constructor(
    readonly inner: Thread,
    readonly transient: readonly Message[],
    readonly inputId: string,
    readonly guard: () => void,
  ) {
    super(inner);
  }

  override async append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]> {
    this.guard();
    return this.inner.append(input, options);
  }

  override async view(options?: ViewOptions): Promise<Message[]> {
    const view = await this.inner.view(options);
    if (this.transient.length === 0) return view;
    const at = view.findIndex((message) => message.id === this.inputId);
    const index = at === -1 ? view.length : at;
    return [...view.slice(0, index), ...this.transient, ...view.slice(index)];
  }

  override async fork(options?: ForkOptions): Promise<Thread> {
    this.guard();
    return this.inner.fork(options);
  }

  override async checkpoint(label?: string, options?: UpdateOptions): Promise<Checkpoint> {
    this.guard();
    return this.inner.checkpoint(label, options);
  }

  override async rollback(target: PointTarget, options?: RollbackOptions): Promise<unknown> {
    this.guard();
    return this.inner.rollback(target, options);
  }

  override async update(patch: ThreadUpdate, options?: AppendOptions): Promise<void> {
    this.guard();
    return this.inner.update(patch, options);
  }

  override async delete(options?: UpdateOptions): Promise<void> {
    this.guard();
    return this.inner.delete(options);
  }
}
