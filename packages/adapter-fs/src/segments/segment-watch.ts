import { type FSWatcher, watch } from "node:fs";

/**
 * Calls `listener` when a file in a segment's directory changes (a streamed reply's batch is appended by
 * any process on this machine), until the returned function is called. Through the kernel's file
 * notifications (`fs.watch`); where they are not to be had (a directory that is gone, a file system that
 * gives none, such as many network mounts), nothing is watched and followers of the reply poll.
 */
export function watchSegment(directory: string, listener: () => void): () => void {
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(directory, { persistent: false }, () => listener());
    // A watcher that fails later (the directory removed) stops; polling carries on.
    watcher.on("error", () => watcher?.close());
  } catch {
    watcher = undefined;
  }
  return () => watcher?.close();
}
