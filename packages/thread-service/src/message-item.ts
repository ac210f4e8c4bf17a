import {
  type ContextProvider,
  type Message,
  SkeinError,
  type Thread,
  type ThreadRunner,
  type ThreadStore,
} from "@skein/thread-core";
import { redactSecrets } from "@skein/thread-core/driver";
import type { ConfigDocuments } from "./config-document.js";
import { LeaseLostError, ThreadKilledError, ThreadProcessingError } from "./errors.js";
import type { EventStream } from "./event-stream.js";
import { FencedThread } from "./fenced-thread.js";
import type { LiveReplies } from "./live-replies.js";
import { changeServiceRecord } from "./optimistic-update.js";
import type { OutputValidator } from "./output-validator.js";
import { runMessage, type SendResult } from "./run-message.js";
import { RunReplies } from "./run-replies.js";
import { assertAcceptsMessages, readServiceRecord, type ServiceRecord } from "./service-record.js";
import type { HeldLease } from "./thread-lease.js";
import type { QueueItem, ThreadQueue } from "./thread-queues.js";
import { statusOf } from "./thread-status.js";

/** What the work items of a service share. */
export interface ServiceContext {
  store: ThreadStore;
  runner: ThreadRunner;
  providers: readonly ContextProvider[];
  validator: OutputValidator;
  /** Where configurations are read: their create-once documents, not the copy in the thread's metadata. */
  configs: ConfigDocuments;
  events: EventStream;
  /** The replies streaming in this instance's runs, for events clients that join late. */
  live: LiveReplies;
  leaseMs: number;
}

interface Settle<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** A message waiting in its thread's queue; `send` resolves or rejects through `settle`. */
export function messageItem(
  context: ServiceContext,
  threadId: string,
  input: Message,
  settle: Settle<SendResult>,
): QueueItem {
  const fail = (error: unknown) => {
    context.events.emit({
      type: "failed",
      threadId,
      messageId: input.id,
      error: asSkeinError(error, threadId, input.id),
      at: new Date().toISOString(),
    });
    settle.reject(error);
  };
  return {
    kind: "message",
    fail,
    execute: async (lease, queue) => {
      // The thread as the previous run under this same lease left it, if there was one: no read is needed
      // when nobody has written it since, and if anyone has, the store refuses this run's first write (its
      // fence is that run's last revision) and the thread is read afresh and checked before anything lands.
      const kept = queue.keptThread?.lease === lease ? queue.keptThread.thread : undefined;
      queue.keptThread = undefined;
      for (const reused of kept ? [kept, undefined] : [undefined]) {
        let thread: Thread;
        let record: ServiceRecord;
        try {
          // Read afresh under the lease: another instance may have paused, killed or branched it meanwhile.
          thread = reused ?? (await context.store.get(threadId));
          record = await context.configs.verified(threadId, readServiceRecord(thread));
          assertAcceptsMessages(threadId, record);
          if (queue.killed) throw queue.killed;
        } catch (error) {
          // What a kept thread shows may be out of date: only a fresh read refuses the message.
          if (reused) continue;
          fail(error);
          return;
        }
        const reuse = reused !== undefined;
        const processing = { thread, record, input, lease, queue, settle, fail, reuse };
        if ((await processMessage(context, processing)) !== "moved") return;
      }
    },
  };
}

/** Thrown by a kept thread's fence when the thread moved before the run's first write. */
const THREAD_MOVED = Symbol("thread moved since the previous run");

function movedSinceKept(error: unknown): boolean {
  return error === THREAD_MOVED || (error instanceof Error && error.cause === THREAD_MOVED);
}

interface Processing {
  /** Whether `thread` was kept from the previous run under the lease rather than read for this one. */
  reuse: boolean;
  thread: Thread;
  record: ServiceRecord;
  input: Message;
  lease: HeldLease;
  queue: ThreadQueue;
  settle: Settle<SendResult>;
  fail: (error: unknown) => void;
}

/** Settles the message, or answers "moved" (nothing written, nothing settled) when a kept thread was stale. */
async function processMessage(context: ServiceContext, processing: Processing): Promise<"moved" | undefined> {
  const { input, queue, record } = processing;
  // Every write of the run, the runner's own included, is fenced by the lease (see FencedThread).
  const thread = new FencedThread(
    processing.thread,
    processing.lease,
    input.id,
    undefined,
    processing.reuse ? () => THREAD_MOVED : undefined,
  );
  const controller = new AbortController();
  queue.running = { messageId: input.id, controller };
  const running = () => emitStatus(context, thread.id, statusOf(record, true));
  // A kept thread may be out of date and the message refused at its first write: it is running only once
  // that write has landed.
  if (!processing.reuse) running();
  const stopWatching = watchForKill(context, thread.id, controller);
  let failure: unknown;
  try {
    const result = await runMessage({
      ...processing,
      thread,
      runner: context.runner,
      providers: context.providers,
      validator: context.validator,
      controller,
      replies: (guard) => new RunReplies(thread.id, input.id, context.events, context.live, guard),
      ...(processing.reuse ? { appended: running } : {}),
    });
    await noteOutcome(thread, record, input.id, undefined);
    // The next message under this lease may start from the thread as this run left it (see execute).
    const inner = processing.thread;
    if (inner.capabilities.revisions && inner.type === context.store.nativeType)
      queue.keptThread = { lease: processing.lease, thread: inner };
    context.events.emit({
      type: "completed",
      threadId: thread.id,
      messageId: input.id,
      messages: result.messages,
      ...(result.output === undefined ? {} : { output: result.output }),
      at: new Date().toISOString(),
    });
    processing.settle.resolve(result);
  } catch (error) {
    if (processing.reuse && movedSinceKept(error)) return "moved";
    failure = error;
    await noteOutcome(thread, record, input.id, error);
    processing.fail(error);
  } finally {
    stopWatching();
    queue.running = undefined;
  }
  // After a lost lease the thread is another instance's to report on.
  if (LeaseLostError.isInstance(failure) || !context.events.wants(thread.id)) return undefined;
  // Read again: the thread may have been paused or killed (here or elsewhere) while it ran.
  emitStatus(context, thread.id, statusOf(await currentRecord(thread, record), false));
  return undefined;
}

/**
 * Stores the last message's failure, or clears it after a success; writes only when that changes. A kill or
 * a lost lease is not the thread's failure: the first is in its lifecycle, the second belongs to the new holder.
 */
async function noteOutcome(
  thread: Thread,
  record: ServiceRecord,
  messageId: string,
  error: unknown,
): Promise<void> {
  if (ThreadKilledError.isInstance(error) || LeaseLostError.isInstance(error)) return;
  const failure =
    error === undefined
      ? undefined
      : {
          messageId,
          error: error instanceof Error ? error.name : "Error",
          // A service may quote a credential in its error text; the record is stored and exported with the thread.
          message: redactSecrets(error instanceof Error ? error.message : String(error)),
          at: new Date().toISOString(),
        };
  if (!failure && !record.lastFailure) return;
  try {
    await changeServiceRecord(thread, (current) => {
      if (!failure && !current.lastFailure) return undefined;
      const { lastFailure: _previous, ...rest } = current;
      return failure ? { ...rest, lastFailure: failure } : rest;
    });
  } catch {
    // The outcome itself stands; only its summary in the record is missing.
  }
}

async function currentRecord(thread: Thread, fallback: ServiceRecord): Promise<ServiceRecord> {
  try {
    await thread.refresh();
    return readServiceRecord(thread);
  } catch {
    return fallback;
  }
}

/** Another instance may kill the thread while it runs here: look for it every third of the lease. */
function watchForKill(context: ServiceContext, threadId: string, controller: AbortController): () => void {
  const timer = setInterval(
    async () => {
      try {
        const record = readServiceRecord(await context.store.get(threadId));
        if (record.lifecycle === "killed") controller.abort(new ThreadKilledError(threadId));
      } catch {
        // A failed look is retried at the next tick; the lease guards the thread meanwhile.
      }
    },
    Math.max(10, Math.floor(context.leaseMs / 3)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

function emitStatus(context: ServiceContext, threadId: string, status: ReturnType<typeof statusOf>): void {
  context.events.emit({ type: "status", threadId, status, at: new Date().toISOString() });
}

function asSkeinError(error: unknown, threadId: string, messageId: string): SkeinError {
  if (SkeinError.isInstance(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new ThreadProcessingError(threadId, messageId, detail, { cause: error });
}
