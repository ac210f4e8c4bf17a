import type { z } from "zod";
import { assertThreadId, newSortableId } from "../ids.js";
import { createMemoryStore } from "../memory/memory-thread-type.js";
import { OpaqueThreadState } from "../opaque-state.js";
import type { ThreadStore } from "../store/store.js";
import { type BindEnvironment, defineThreadType, type ThreadState } from "../thread-type.js";
import type { WorkflowData, WorkflowState } from "./workflow-state.js";
import { WorkflowStateSchema } from "./workflow-state.js";
import { MAIN_THREAD, type SubThread, WorkflowThread } from "./workflow-thread.js";

/** Options of a new workflow thread: its id, metadata and the names of its sub-threads. */
export interface CreateWorkflowOptions {
  id?: string;
  metadata?: Record<string, unknown>;
  /** Keys of the local sub-threads to create. @default ["main"] */
  threads?: string[];
}

/** `workflow`: sub-threads of any type by key, with execution state, saved as one state document. */
export const workflowThreadType = defineThreadType({
  type: "workflow",
  version: 1,
  packageName: "@skein/thread-core",
  schema: WorkflowStateSchema as unknown as z.ZodType<ThreadState, unknown>,
  nested: (state, parseChild) => ({
    ...state,
    threads: Object.fromEntries(
      Object.entries(state.threads as Record<string, unknown>).map(([key, child]) => [
        key,
        parseChild(child, key),
      ]),
    ),
  }),
  bind: async (state, environment) => {
    const store = storeOf(environment);
    const { threads, ...data } = state as unknown as WorkflowState;
    const bound = new Map<string, SubThread>();
    for (const [key, child] of Object.entries(threads)) {
      bound.set(key, OpaqueThreadState.isInstance(child) ? child : await store.open(child));
    }
    return new WorkflowThread(store, data as WorkflowData, bound, environment.stored === true);
  },
  create: async (options, environment) => {
    const settings = options as CreateWorkflowOptions;
    const id = settings.id ?? newSortableId();
    assertThreadId(id);
    const store = storeOf(environment);
    const data: WorkflowData = {
      $type: "workflow",
      $v: 1,
      id,
      createdAt: new Date().toISOString(),
      metadata: (settings.metadata ?? {}) as WorkflowData["metadata"],
      context: {},
      revision: 0,
      execution: { steps: [], current: [], next: [] },
      checkpoints: [],
      events: [],
    };
    const threads = new Map<string, SubThread>();
    for (const key of settings.threads ?? [MAIN_THREAD]) {
      threads.set(key, await store.create({ metadata: { workflow: id, key } }));
    }
    const workflow = new WorkflowThread(store, data, threads);
    await workflow.save();
    return workflow;
  },
});

function storeOf(environment: BindEnvironment): ThreadStore {
  return environment.store ?? createMemoryStore({ registry: environment.registry });
}
