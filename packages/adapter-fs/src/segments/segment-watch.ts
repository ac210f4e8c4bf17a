import { type FSWatcher, watch } from "node:fs";
import { dirname } from "node:path";

/**
 * Calls `listener` when a file in a segment's directory changes (a streamed reply's batch is appended by
 * any process on this machine), until the returned function is called. Through the kernel's file
 * notifications (`fs.watch`); where they are not to be had (a file system that gives none, such as many
 * network mounts), nothing is watched and followers of the reply poll. A reply's segment is made by its
 * first batch, so a follower may come before its directory: the directory it will appear in is watched
 * until it does, then the segment's own.
 */
export function watchSegment(directory: string, listener: () => void): () => void {
  let closed = false;
  let watcher = watchDirectory(directory, listener);
  if (!watcher) {
    const own = (): boolean => {
      const found = watchDirectory(directory, listener);
      if (!found) return false;
      watcher?.close();
      watcher = found;
      // Batches written before the switch woke nobody: the follower reads once.
      listener();
      return true;
    };
    watcher = watchDirectory(dirname(directory), () => {
      if (!closed && watcher !== undefined) own();
    });
    // Made between the first try and the parent's watch: no event will say so.
    own();
  }
  return () => {
    closed = true;
    watcher?.close();
  };
}

/** A watcher of `directory`, or undefined where it cannot be had (absent, or no notifications). */
function watchDirectory(directory: string, onChange: () => void): FSWatcher | undefined {
  try {
    const watcher = watch(directory, { persistent: false }, () => onChange());
    // A watcher that fails later (the directory removed) stops; polling carries on.
    watcher.on("error", () => watcher.close());
    return watcher;
  } catch {
    return undefined;
  }
}
