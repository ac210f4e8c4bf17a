import type { ThreadStore } from "../store/store.js";
import type { SuiteOptions } from "./test-runner.js";

/**
 * Options of `runConformanceSuite`: a name, how to create the store under test, cleanup, what to skip with why,
 * and your test runner's `describe` and `it` (the same shape as `runLogDriverSuite`'s, which creates drivers).
 */
export interface ConformanceOptions extends SuiteOptions {
  /** Makes a fresh, empty store for each case; the suite closes it afterwards. */
  createStore: () => Promise<ThreadStore>;
  /**
   * A second store on the same data as `store` (another connection, another handle on the directory), for
   * cases that write through two stores at once. Absent (the memory store): two handles of one store.
   */
  openSecondStore?: (store: ThreadStore) => Promise<ThreadStore>;
  /** Appends in the concurrency case. @default 500 */
  concurrentAppends?: number;
}
