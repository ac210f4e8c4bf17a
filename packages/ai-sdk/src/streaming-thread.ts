import { type Thread, UnsupportedOperationError } from "@skein/thread-core";
import type {
  BeginMessageOptions,
  FollowEvent,
  FollowOptions,
  StreamingReply,
} from "@skein/thread-core/driver";
import { SOURCE } from "./errors.js";

/** A thread replies stream into (a `LogThread`: every store's own threads, memory, file, redis, postgres). */
export type StreamingThread = Thread & {
  beginMessage(options: BeginMessageOptions): Promise<StreamingReply>;
  follow(messageId: string, options?: FollowOptions): AsyncGenerator<FollowEvent>;
};

/**
 * Refuses a thread that cannot stream a reply (a remote service's, a workflow, a wrapper without
 * `beginMessage`): persistChat and resumeChat need a thread skein keeps the log of.
 */
export function assertStreamingThread(call: string, thread: Thread): asserts thread is StreamingThread {
  const candidate = thread as Partial<StreamingThread>;
  if (typeof candidate.beginMessage === "function" && typeof candidate.follow === "function") return;
  throw new UnsupportedOperationError(
    thread.type,
    "beginMessage",
    `${call} streams the reply into the thread as it is made, which needs a thread whose log skein keeps (a store's own thread: memory, file, redis, postgres); save this chat with saveChat in onFinish instead`,
    { source: SOURCE },
  );
}
