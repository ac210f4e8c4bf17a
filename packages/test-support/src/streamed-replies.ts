// What the stores' reply-storage tests share: replies streamed into a thread with a marker in one delta each,
// so a scan of the backend counts how many copies of a reply the store keeps.
import { LogThread, type ThreadStore } from "@skein/thread-core";

/** A text written once into each reply: the store should hold it once per reply. */
export const REPLY_MARKER = "STREAMED-REPLY-MARKER-5eed";

/**
 * Streams two replies into a new thread of `store`, the marker in one delta of each (every delta its own
 * batch): one ended, one failed. Resolves once both landed in the log.
 */
export async function streamMarkedReplies(store: ThreadStore): Promise<LogThread> {
  const thread = await store.create({ id: "streamed" });
  if (!LogThread.isInstance(thread)) throw new Error("the store's native threads are not log threads");
  const ended = await thread.beginMessage({ role: "assistant", id: "ended", maxBatchBytes: 1 });
  const failed = await thread.beginMessage({
    role: "assistant",
    id: "failed",
    concurrent: true,
    maxBatchBytes: 1,
  });
  for (const reply of [ended, failed]) {
    await reply.write("before ");
    await reply.write(REPLY_MARKER);
    await reply.write(" after");
  }
  await ended.end();
  await failed.fail(new Error("stopped"));
  return thread;
}

/** How many times `text` occurs in `texts`, all told. */
export function occurrences(texts: readonly string[], text: string): number {
  return texts.reduce((count, each) => count + each.split(text).length - 1, 0);
}
