import type {
  ContextProvider,
  JsonValue,
  Message,
  MessageInput,
  Thread,
  ThreadRunner,
} from "@skein/thread-core";
import { normalizeMessage, runWithContextProviders } from "@skein/thread-core/driver";
import { LeaseLostError, ThreadProcessingError, ThreadTimeoutError } from "./errors.js";
import type { OutputValidator } from "./output-validator.js";
import type { RunReplies } from "./run-replies.js";
import { RunThread } from "./run-thread.js";
import type { Attachment, ServiceRecord } from "./service-record.js";
import { runConfigOf } from "./thread-config.js";
import type { HeldLease } from "./thread-lease.js";

/** What `send` resolves with. */
export interface SendResult {
  threadId: string;
  /** The message as it was appended to the thread. */
  input: Message;
  /** What the runner appended, in order. */
  messages: Message[];
  /** The parsed, validated answer, for threads whose configuration has an `outputSchema`. */
  output?: JsonValue;
}

export interface MessageRun {
  thread: Thread;
  record: ServiceRecord;
  input: Message;
  runner: ThreadRunner;
  providers: readonly ContextProvider[];
  validator: OutputValidator;
  lease: HeldLease;
  /** Aborted with a typed error (`ThreadKilledError`, `ThreadTimeoutError`, …) to stop the run. */
  controller: AbortController;
  /** Called once the input message has landed: the run has started for good. */
  appended?: () => void;
  /** Streams the runner's replies into the thread (`RunOptions.beginMessage`) and into the events. */
  replies?: (guard: () => void) => RunReplies;
}

/** The error a reply still open when its runner returned ends with. */
const LEFT_OPEN = "the runner returned without ending this reply";

/**
 * Processes one message under the thread's lease: appends it, gathers the providers' context, runs the
 * runner within `maxTime`, validates structured output, and stores the providers' next states (the last
 * through the run's guarded thread, so a run that is over writes nothing).
 */
export async function runMessage(run: MessageRun): Promise<SendResult> {
  const { thread, record, input, controller } = run;
  const threadId = thread.id;
  const { config } = record;
  const stopTimer = startTimer(config.maxTime, () =>
    controller.abort(new ThreadTimeoutError(threadId, input.id, config.maxTime as number)),
  );
  const onLeaseLost = () => controller.abort(new LeaseLostError(threadId, input.id));
  run.lease.signal.addEventListener("abort", onLeaseLost, { once: true });
  const guard = () => {
    if (!controller.signal.aborted && !run.lease.valid()) onLeaseLost();
    if (controller.signal.aborted) throw controller.signal.reason;
  };
  const replies = run.replies?.(guard);
  try {
    guard();
    const [appended] = await untilAborted(thread.append(input), controller.signal);
    const stored = appended as Message;
    run.appended?.();
    const attachments = attachmentMessages(record.attachments).map((message) => normalizeMessage(message));
    const view = new RunThread(thread, attachments, stored.id, guard);
    const beginMessage = replies?.beginFor(thread);
    let output: JsonValue | undefined;
    // The answer is validated before the providers learn from the run: one that fails its schema teaches
    // them nothing. The providers run through thread-core's runWithContextProviders, as for any runner.
    const validating: ThreadRunner = {
      specificationVersion: "v1",
      supports: (candidate) => run.runner.supports(candidate),
      run: async (runThread, options) => {
        const answer = await untilAborted(run.runner.run(runThread, options), controller.signal);
        guard();
        if (config.outputSchema) {
          output = run.validator.validate(config.outputSchema, answer, { threadId, messageId: input.id });
        }
        return answer;
      },
    };
    const messages = await untilAborted(
      runWithContextProviders({
        runner: validating,
        providers: run.providers,
        thread: view,
        // Attachments are shown in the view for this run only; a runner that sends no view refuses them.
        options: {
          signal: controller.signal,
          config: runConfigOf(config),
          ...(attachments.length === 0 ? {} : { transient: attachments }),
          ...(beginMessage === undefined ? {} : { beginMessage }),
        },
        input: [stored],
      }),
      controller.signal,
    );
    guard();
    await replies?.failOpen(new Error(LEFT_OPEN));
    return { threadId, input: stored, messages, ...(output === undefined ? {} : { output }) };
  } catch (error) {
    // Killed, timed out, failed: a reply still streaming ends `interrupted`, with everything it received.
    await replies?.failOpen(controller.signal.aborted ? controller.signal.reason : error);
    if (controller.signal.aborted) throw controller.signal.reason;
    if (ThreadProcessingError.isInstance(error)) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new ThreadProcessingError(threadId, input.id, detail, { cause: error });
  } finally {
    stopTimer();
    run.lease.signal.removeEventListener("abort", onLeaseLost);
  }
}

/** Attachments are shown to the model as one user message of `file` contents, rebuilt for every run. */
function attachmentMessages(attachments: readonly Attachment[]): MessageInput[] {
  if (attachments.length === 0) return [];
  const contents = attachments.map((attachment) => ({
    type: "file" as const,
    fileId: attachment.fileId,
    ...(attachment.name === undefined ? {} : { name: attachment.name }),
    ...(attachment.mediaType === undefined ? {} : { mediaType: attachment.mediaType }),
  }));
  return [{ role: "user", contents, metadata: { "@skein/thread-service": "attachments" } }];
}

function startTimer(maxTime: number | undefined, onTimeout: () => void): () => void {
  if (maxTime === undefined) return () => {};
  const timer = setTimeout(onTimeout, maxTime);
  return () => clearTimeout(timer);
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts: a runner that ignores its
 * signal does not hold the thread's queue (and its writes are refused by the run's guard).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
