import { defineThreadType, type ThreadState } from "@skein/thread-core";
import type { z } from "@skein/thread-core/driver";
import { A2aTaskThread, type A2aTaskThreadState, A2aTaskThreadStateSchema } from "./a2a-task-thread.js";
import { PACKAGE_NAME } from "./agent-clients.js";

/** `a2a.task`: the tasks `skeinTaskStore` keeps, readable (not writable) as threads. */
export const a2aTaskThreadType = defineThreadType({
  type: "a2a.task",
  version: 1,
  packageName: PACKAGE_NAME,
  schema: A2aTaskThreadStateSchema as unknown as z.ZodType<ThreadState, unknown>,
  bind: (state, environment) => new A2aTaskThread(state as A2aTaskThreadState, environment.store),
});
