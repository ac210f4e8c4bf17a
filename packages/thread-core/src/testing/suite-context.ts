import { it } from "vitest";
import type { ThreadStore } from "../store/store.js";
import type { ConformanceOptions } from "./conformance-options.js";

export interface SuiteContext {
  /** The store of the running case. */
  store: ThreadStore;
  options: ConformanceOptions;
}

/** Registers a named case, or a skip that carries the reason the store gave for it. */
export function conformanceCase(
  context: SuiteContext,
  name: string,
  body: () => Promise<void>,
  timeout?: number,
) {
  const reason = context.options.skip?.[name];
  if (reason !== undefined) {
    it.skip(`${name} (skipped: ${reason})`, body);
    return;
  }
  it(name, body, timeout);
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
