import { LockTimeoutError } from "../errors.js";
import type { FsStorage } from "../fs-storage.js";
import type { Lease } from "../locks/lease.js";
import { removeTree, stagingPath } from "../locks/staging-area.js";
import { threadReferrer } from "../segments/segment-directories.js";
import { referencedSegments } from "./record-files.js";

/**
 * Finishes the deletes of `thread` that other lock holdings left pending (`PendingDeletes`): run under the
 * thread's lock (`lease`, a `"record"` one), so every such holding is over (dead, or fenced off by the
 * takeover that gave this lease its lock) and no one makes or changes a thread under the id meanwhile.
 *
 * Each pending delete's segments lose the thread's reference (and are reclaimed if nothing else points at
 * them, as a delete would), except those the record now under the id points at: a thread made under the
 * same id after the crash (or one whose removal never landed) shares the reference's name,
 * `refs/thread.<name>`, and keeps what it needs. The dead holding's staging directory, where the removed
 * record and history went, is removed, and then the pending delete. A history that cannot be read leaves
 * everything as it is, for a later run: a reference kept too long is a leak, one dropped too early a loss.
 */
export async function finishPendingDeletes(storage: FsStorage, thread: string, lease: Lease): Promise<void> {
  const left = storage.pendingDeletes.of(thread).filter((file) => file.nonce !== lease.staging.nonce);
  if (left.length === 0) return;
  const stored = await storage.records.read(thread);
  let needed = new Set<string>();
  if (stored?.kind === "log") {
    const events = await storage.records.events(stored);
    if (!events) return;
    needed = referencedSegments({ head: stored.head, events });
  }
  await storage.locks.withLock(storage.layout.referencesLock, async () => {
    for (const file of left) {
      // Taken over meanwhile (this process stopped): the taker finishes it.
      if (!lease.held()) return;
      const pending = storage.pendingDeletes.read(file.path);
      for (const segment of pending?.segments ?? []) {
        if (!needed.has(segment)) await storage.segments.release(segment, threadReferrer(thread));
      }
      removeTree(stagingPath(lease.staging.lockPath, file.nonce));
      storage.pendingDeletes.remove(file.path);
    }
  });
}

/**
 * Finishes every pending delete of the store, one thread lock at a time (`finishPendingDeletes`): what a
 * sweep or an erasure runs first, so that a run killed inside a delete is finished by the next one even when
 * no thread is left for it to delete. O(deletes left pending): one `readdir` when there are none. A thread
 * whose lock stays busy past the lock timeout is left for a later run.
 */
export async function finishEveryPendingDelete(
  storage: FsStorage,
  withThreadLock: (thread: string, task: (lease: Lease) => Promise<void>) => Promise<void>,
): Promise<void> {
  for (const file of storage.pendingDeletes.all()) {
    // Torn or finished meanwhile: a torn one was written before anything was removed, and the next delete
    // of its thread removes it (its thread cannot be told from a hashed file name).
    const pending = storage.pendingDeletes.read(file.path);
    if (!pending) continue;
    try {
      await withThreadLock(pending.thread, (lease) => finishPendingDeletes(storage, pending.thread, lease));
    } catch (error) {
      if (!LockTimeoutError.isInstance(error)) throw error;
    }
  }
}
