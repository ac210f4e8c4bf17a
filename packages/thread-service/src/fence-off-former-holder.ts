import { type Thread, ThreadNotFoundError, type ThreadStore, WorkflowThread } from "@skein/thread-core";
import { isServiceThread } from "@skein/thread-core/driver";
import { updateOptimistically } from "./optimistic-update.js";

/**
 * Called by an instance that has just taken over a thread's lease from another instance, before its turn
 * reads anything: moves the revision of the thread, and of a workflow's sub-threads whose history this store
 * keeps (its own type, or a local type of the application's own), on by one, each in a commit fenced at the revision just read that writes the metadata back as it is. The
 * former holder's fences are at most those revisions, so from then on every write it still has on its way
 * (frozen past its lease) is refused by the store; one that landed first is read by the new turn. Only the
 * revisions and `updatedAt` change. Threads whose history another service keeps (remote ones) are left as they
 * are: a stale write there is refused only once the new holder has written that thread, or, without
 * revisions, not at all (see `FencedThread`).
 */
export async function fenceOffFormerHolder(store: ThreadStore, threadId: string): Promise<void> {
  let thread: Thread;
  try {
    thread = await store.get(threadId);
  } catch (error) {
    // Deleted: nothing of the former holder can land on it.
    if (ThreadNotFoundError.isInstance(error)) return;
    throw error;
  }
  const targets: Thread[] = [];
  if (WorkflowThread.isInstance(thread)) {
    for (const key of thread.keys()) {
      try {
        targets.push(thread.thread(key));
      } catch {
        // A sub-thread whose adapter is not installed here: remote, so not one this commit could move.
      }
    }
    targets.push(thread);
  } else targets.push(thread);
  for (const target of targets) {
    // History another service keeps (openai.responses, a2a, foundry, a workflow's remote sub-thread) is not
    // moved: its runs are fenced by that service's revisions, if any. Every thread skein keeps is: the
    // store's own type, a workflow, and a local type of the application's own (`local: true`).
    if (!target.capabilities.revisions || isServiceThread(target)) continue;
    try {
      await updateOptimistically(target, (current) => ({ metadata: { ...current.metadata } }));
    } catch (error) {
      // Deleted while this commit was made (a store may say so in other words, or through a sub-thread the
      // delete took first): nothing of the former holder can land on it, and there is nothing to fence.
      if (await deleted(store, threadId)) return;
      // A sub-thread deleted on its own, out of a workflow that is still there.
      if (target !== thread && ThreadNotFoundError.isInstance(error)) continue;
      throw error;
    }
  }
}

/** Whether the store no longer holds the thread. */
function deleted(store: ThreadStore, threadId: string): Promise<boolean> {
  return store.get(threadId).then(
    () => false,
    (error: unknown) => ThreadNotFoundError.isInstance(error),
  );
}
