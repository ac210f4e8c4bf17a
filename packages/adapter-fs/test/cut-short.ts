import fsPromises from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";

/**
 * Runs `task` with the first `rm` of a path matching `path` failing with `reason`, as if the process died
 * there (the ESM bindings of node:fs/promises are patched too). Gives what the task threw.
 */
export async function cutShortAtRemoval(
  path: RegExp,
  reason: string,
  task: () => Promise<unknown>,
): Promise<unknown> {
  const remove = fsPromises.rm;
  let failed = false;
  fsPromises.rm = async (target, options) => {
    if (!failed && path.test(String(target))) {
      failed = true;
      throw new Error(reason);
    }
    return remove(target, options);
  };
  syncBuiltinESMExports();
  try {
    return await task().then(
      () => undefined,
      (error: unknown) => error,
    );
  } finally {
    fsPromises.rm = remove;
    syncBuiltinESMExports();
  }
}
