import { mkdir, readFile, rename, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ThreadManagerCallbacks } from "../thread-manager.js";

/**
 * Thread manager callbacks over one JSON file per pair, safe across processes: `save` is a compare-and-set
 * made atomic by a lock directory (mkdir either creates it or fails), the way a real backend would use
 * `UPDATE … WHERE revision = $expected`. For tests only: a crashed holder's lock is never broken.
 */
export function fileCallbacks(directory: string): ThreadManagerCallbacks {
  const path = (threadId: string) => join(directory, `${threadId}.json`);
  const read = async (threadId: string): Promise<{ revision: number; state: unknown } | undefined> => {
    try {
      return JSON.parse(await readFile(path(threadId), "utf8"));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  };
  const locked = async <T>(threadId: string, action: () => Promise<T>): Promise<T> => {
    const lock = join(directory, `${threadId}.lock`);
    for (;;) {
      try {
        await mkdir(lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    try {
      return await action();
    } finally {
      await rmdir(lock);
    }
  };
  return {
    load: async (key) => (await read(key.threadId))?.state,
    save: (key, state, { expectedRevision }) =>
      locked(key.threadId, async () => {
        if (((await read(key.threadId))?.revision ?? 0) !== expectedRevision) return false;
        const temporary = `${path(key.threadId)}.${process.pid}.tmp`;
        await writeFile(temporary, JSON.stringify({ revision: state.revision, state }));
        await rename(temporary, path(key.threadId)); // readers see the old file or the new, never half
        return true;
      }),
  };
}
