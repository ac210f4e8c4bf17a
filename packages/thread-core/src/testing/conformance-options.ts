import type { ThreadStore } from "../store/store.js";

/** Options of `runConformanceSuite`: a name, how to create the store under test, cleanup and what to skip, with why. */
export interface ConformanceOptions {
  /** Shown in test names, e.g. "redis (cluster)". */
  name: string;
  /** Makes a fresh, empty store for each case; the suite closes it afterwards. */
  createStore: () => Promise<ThreadStore>;
  /** Runs after each case's store is closed (remove a temp directory, flush a database). */
  cleanup?: () => Promise<void>;
  /** Cases to skip, by name, each with the reason that is printed with the skip. */
  skip?: Record<string, string>;
  /**
   * A second store on the same data as `store` (another connection, another handle on the directory), for
   * cases that write through two stores at once. Absent (the memory store): two handles of one store.
   */
  openSecondStore?: (store: ThreadStore) => Promise<ThreadStore>;
  /** Appends in the concurrency case. @default 500 */
  concurrentAppends?: number;
}
