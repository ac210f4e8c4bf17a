import type { LocalThread, Thread } from "@skein/thread-core";

/**
 * The thread as a local thread (memory, fs, redis: a log of segments), or undefined for other types.
 * Checked by shape, not `instanceof`, so it holds across two installed copies of thread-core.
 */
export function asLocalThread(thread: Thread): LocalThread | undefined {
  const candidate = thread as Partial<LocalThread>;
  return typeof candidate.iterate === "function" && typeof candidate.record === "object"
    ? (thread as LocalThread)
    : undefined;
}

/** How many messages the thread holds: from the record for local threads, by reading for others. */
export async function messageCount(thread: Thread): Promise<number> {
  const local = asLocalThread(thread);
  if (local) return local.length;
  return (await thread.messages()).length;
}
