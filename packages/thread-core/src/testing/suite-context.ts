import type { ThreadStore } from "../store/store.js";
import type { ConformanceOptions } from "./conformance-options.js";
import { type CaseControl, registerCase } from "./test-runner.js";

export interface SuiteContext {
  /** The store of the running case. */
  store: ThreadStore;
  options: ConformanceOptions;
}

/**
 * Registers a named case on a fresh store (closed, and the options' cleanup run, after it), or a skip that
 * carries the reason the store gave for it.
 */
export function conformanceCase(
  context: SuiteContext,
  name: string,
  body: (control: CaseControl) => Promise<void>,
  timeout?: number,
) {
  registerCase(
    context.options,
    name,
    async (control) => {
      context.store = undefined as unknown as ThreadStore;
      try {
        context.store = await context.options.createStore();
        await body(control);
      } finally {
        await context.store?.close();
        await context.options.cleanup?.();
      }
    },
    timeout,
  );
}

/** Awaits `promise` and returns what it threw, failing if it resolved. */
export async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to throw, but it succeeded");
}
