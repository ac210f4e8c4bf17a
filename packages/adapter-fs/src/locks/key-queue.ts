/** The last task queued for each key, process-wide, so two stores on one directory also wait for each other. */
const tails = new Map<string, Promise<void>>();

/** How long `runInTurn` waits for the tasks queued before it, and what it throws when that runs out. */
export interface TurnWait {
  timeoutMs: number;
  /** The error thrown after `waitedMs` without a turn. */
  timedOut: (waitedMs: number) => Error;
}

/**
 * Runs `task` after every task queued earlier under `key` in this process has finished, so writers in one
 * process wait in line instead of polling a lock file. With `wait`, it gives up after `wait.timeoutMs`
 * (throwing `wait.timedOut`), so no call waits without a bound; the tasks queued after it still wait for
 * the ones before it. `task` is given how long it waited for its turn.
 */
export async function runInTurn<T>(
  key: string,
  task: (waitedMs: number) => Promise<T>,
  wait?: TurnWait,
): Promise<T> {
  const previous = tails.get(key);
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const tail = previous ? previous.then(() => finished) : finished;
  tails.set(key, tail);
  const started = Date.now();
  try {
    if (previous) await (wait ? within(previous, wait) : previous);
    return await task(Date.now() - started);
  } finally {
    finish();
    // Forgotten once everything queued before it is done too (a caller that gave up leaves them running).
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
  }
}

function within(previous: Promise<void>, wait: TurnWait): Promise<void> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(wait.timedOut(Date.now() - started)), wait.timeoutMs);
  });
  return Promise.race([previous, expired]).finally(() => clearTimeout(timer));
}
