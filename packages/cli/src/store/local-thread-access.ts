import { LogThread, type Thread } from "@skein/thread-core";

/**
 * The thread as a log thread (memory, fs, redis, postgres: a log of segments), or undefined for other types.
 * @deprecated use `LogThread.isInstance(thread)` from `@skein/thread-core`, which holds across installed copies.
 */
export function asLocalThread(thread: Thread): LogThread | undefined {
  return LogThread.isInstance(thread) ? thread : undefined;
}

/** How many messages the thread holds: from the record for log threads, by reading for others. */
export async function messageCount(thread: Thread): Promise<number> {
  if (LogThread.isInstance(thread)) return thread.length;
  return (await thread.messages()).length;
}
