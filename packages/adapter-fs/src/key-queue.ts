/** The last task queued for each key, process-wide, so two stores on one directory also wait for each other. */
const tails = new Map<string, Promise<void>>();

/**
 * Runs `task` after every task queued earlier under `key` in this process has finished, so writers in one
 * process wait in line instead of polling a lock file.
 */
export async function runInTurn<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key);
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const tail = previous ? previous.then(() => finished) : finished;
  tails.set(key, tail);
  try {
    if (previous) await previous;
    return await task();
  } finally {
    finish();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
