import {
  ConflictError,
  InvalidMessageError,
  InvalidThreadIdError,
  InvalidThreadStateError,
  PointNotFoundError,
  type SkeinError,
  ThreadExistsError,
  ThreadNotFoundError,
  type ThreadStore,
  UnknownThreadTypeError,
  UnsupportedOperationError,
  UnsupportedVersionError,
} from "@skein/thread-core";
import { canonicalJson } from "@skein/thread-core/driver";
import { InvalidArgumentError } from "../cli/cli-error.js";
import { type CliStoreOptions, openCliStore } from "../store/open-cli-store.js";

/** Options of `migrateThreads`: whether differing threads are overwritten, how many are copied at once, and progress. */
export interface MigrateOptions {
  /** Replace destination threads that differ from the source. @default false: leave them and report them */
  overwrite?: boolean;
  /** Threads copied at once. @default 8 */
  concurrency?: number;
  onProgress?(done: number, total: number, report: MigrateReport): void;
}

/** What `migrateThreads` did: how many threads were copied or already equal, and which differed or vanished. */
export interface MigrateReport {
  /** Threads the source listed. */
  total: number;
  /** Copied now (and read back equal). */
  copied: number;
  /** Already in the destination, equal: a previous run copied them. */
  unchanged: number;
  /** In the destination with other content; left as they are unless `overwrite`. */
  differing: string[];
  /** Listed by the source but deleted before they were read. */
  vanished: string[];
  /** Threads that could not be copied (an invalid or unportable state), with why; the others still were. */
  failed: Array<{ id: string; error: string }>;
  seconds: number;
}

type Outcome = "copied" | "unchanged" | "differing" | "vanished";

/** Errors that concern one thread's content: it is reported and the run goes on. Others (a store gone) stop it. */
const THREAD_ERRORS: ReadonlyArray<{ isInstance(value: unknown): boolean }> = [
  ThreadNotFoundError,
  InvalidThreadStateError,
  InvalidMessageError,
  InvalidThreadIdError,
  UnknownThreadTypeError,
  UnsupportedVersionError,
  UnsupportedOperationError,
  ConflictError,
  PointNotFoundError,
];

/**
 * Copies every thread of `from` into `to` with its whole history (segments, checkpoints, rollbacks,
 * fork origins, revision), through the portable export both stores speak.
 *
 * Resumable and idempotent: a thread whose export already equals the source's is skipped, so a run that
 * was interrupted (even killed) finishes the rest when run again, and a thread is never written twice.
 * A destination thread is only complete once its record exists (stores write the record last), so a
 * thread cut off halfway is simply copied again. Every copy is read back and compared.
 *
 * Either end may be a store URL instead of a store: it is opened for the run and closed after it (a `file:`
 * source must hold a store, `StoreNotFoundError` otherwise; a destination is made if missing).
 * @example await migrateThreads("file:./.skein", "redis://localhost:6379");
 */
export async function migrateThreads(
  from: ThreadStore | string | URL,
  to: ThreadStore | string | URL,
  options: MigrateOptions = {},
): Promise<MigrateReport> {
  // Checked before anything is opened, so a wrong `to` leaves no source open.
  storeArgument("migrateThreads' from", from);
  storeArgument("migrateThreads' to", to);
  const opened: Array<() => Promise<void>> = [];
  try {
    // A URL is opened here and closed after: the source must hold a store, the destination is made if missing.
    const source = await ownStore(from, { create: false }, opened);
    const destination = await ownStore(to, { create: true }, opened);
    return await migrateStores(source, destination, options);
  } finally {
    for (const close of opened.reverse()) await close().catch(() => {});
  }
}

/** Refuses, at the call, what is neither a store nor a store URL. */
function storeArgument(argument: string, value: unknown): void {
  if (typeof value === "string" || value instanceof URL) return;
  const store = value as Partial<ThreadStore> | null;
  if (typeof store?.list === "function" && typeof store.export === "function") return;
  throw new InvalidArgumentError(argument, "a ThreadStore or a store URL such as file:./.skein", value);
}

async function ownStore(
  value: ThreadStore | string | URL,
  options: CliStoreOptions,
  opened: Array<() => Promise<void>>,
): Promise<ThreadStore> {
  if (typeof value !== "string" && !(value instanceof URL)) return value;
  const { store, close } = await openCliStore(String(value), undefined, options);
  opened.push(close);
  return store;
}

async function migrateStores(
  from: ThreadStore,
  to: ThreadStore,
  options: MigrateOptions,
): Promise<MigrateReport> {
  const started = Date.now();
  const ids = await listAll(from);
  const report: MigrateReport = {
    total: ids.length,
    copied: 0,
    unchanged: 0,
    differing: [],
    vanished: [],
    failed: [],
    seconds: 0,
  };
  let done = 0;
  options.onProgress?.(0, ids.length, report);
  /** Copies one thread; resolves to its id when it failed in a way worth another try. */
  const copy = (id: string, last: boolean): Promise<string | undefined> =>
    copyThread(from, to, id, options.overwrite === true).then(
      (outcome) => {
        if (outcome === "copied") report.copied++;
        else if (outcome === "unchanged") report.unchanged++;
        else report[outcome].push(id);
        options.onProgress?.(++done, ids.length, report);
        return undefined;
      },
      (error: unknown) => {
        if (!isThreadError(error)) throw error;
        if (!last) return id;
        report.failed.push({ id, error: error.message });
        options.onProgress?.(++done, ids.length, report);
        return undefined;
      },
    );
  const retry = await inParallel(ids, options.concurrency ?? 8, (id) => copy(id, false));
  // A state that names other threads (a workflow's sub-threads) can only be opened once they are copied:
  // threads that failed are tried once more, one at a time, after all the others.
  await inParallel(retry, 1, (id) => copy(id, true));
  report.seconds = (Date.now() - started) / 1000;
  return report;
}

/**
 * Runs `task` over `items`, `concurrency` at a time, and collects what the tasks return. The first error
 * stops the others from starting new items.
 */
async function inParallel<T>(
  items: readonly string[],
  concurrency: number,
  task: (item: string) => Promise<T | undefined>,
): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const result = await task(items[next++] as string).catch((error: unknown) => {
        next = items.length;
        throw error;
      });
      if (result !== undefined) results.push(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return results;
}

async function copyThread(
  from: ThreadStore,
  to: ThreadStore,
  id: string,
  overwrite: boolean,
): Promise<Outcome> {
  const source = await exportIfPresent(from, id);
  if (source === undefined) return "vanished";
  const wanted = canonicalJson(source);
  const present = await exportIfPresent(to, id);
  if (present !== undefined) {
    if (canonicalJson(present) === wanted) return "unchanged";
    if (!overwrite) return "differing";
    await to.delete(id);
  }
  try {
    await to.import(source);
  } catch (error) {
    if (!ThreadExistsError.isInstance(error)) {
      // A store may have written the state before finding it cannot open it: take it out again, so a later
      // run does not mistake it for a finished copy.
      await to.delete(id).catch(() => false);
      throw error;
    }
    // Another migrate into the same store got there first: judge what it wrote.
    const raced = await exportIfPresent(to, id);
    return raced !== undefined && canonicalJson(raced) === wanted ? "unchanged" : "differing";
  }
  const copy = await exportIfPresent(to, id);
  if (copy === undefined || canonicalJson(copy) !== wanted) {
    throw new ConflictError(
      `thread ${JSON.stringify(id)} reads back different from ${to.url} after copying it`,
      undefined,
      {
        source: "cli",
      },
    );
  }
  return "copied";
}

async function exportIfPresent(store: ThreadStore, id: string) {
  try {
    return await store.export(id);
  } catch (error) {
    if (ThreadNotFoundError.isInstance(error)) return undefined;
    throw error;
  }
}

async function listAll(store: ThreadStore): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    ids.push(...page.items.map((item) => item.id));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return ids;
}

/** Asked with `isInstance`, so an adapter's subclass (`ServiceNotFoundError`) counts as its family. */
function isThreadError(error: unknown): error is SkeinError {
  return THREAD_ERRORS.some((type) => type.isInstance(error));
}
