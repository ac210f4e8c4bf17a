import { randomUUID } from "node:crypto";
import { defineThreadType, type ThreadState } from "@skein/thread-core";
import type { z } from "@skein/thread-core/driver";
import { type BindEnvironment, newSortableId } from "@skein/thread-core/driver";
import { A2aThread } from "./a2a-thread.js";
import { type A2aThreadState, A2aThreadStateSchema } from "./a2a-thread-state.js";
import { findA2aAdapter, PACKAGE_NAME } from "./agent-clients.js";
import { newestState } from "./stored-state.js";

/** What `store.create("a2a", options)` takes. */
export interface CreateA2aThreadOptions {
  /** Where the agent card is served from (`<agentUrl>/.well-known/agent-card.json`), or the card's URL. */
  agentUrl: string;
  /** Join an existing context. @default a new UUID, which the agent adopts on the first message */
  contextId?: string;
  /** @default a new sortable id */
  id?: string;
  metadata?: Record<string, unknown>;
}

/**
 * `a2a`: a conversation with a remote A2A agent, as `{ agentUrl, contextId, taskId?, taskState? }` plus
 * the context's tasks in order. Clients come from the `a2aAdapter` the store was opened with.
 */
export const a2aThreadType = defineThreadType({
  type: "a2a",
  version: 1,
  packageName: PACKAGE_NAME,
  schema: A2aThreadStateSchema as unknown as z.ZodType<ThreadState, unknown>,
  bind: async (state, environment) =>
    new A2aThread(await newestState(state as A2aThreadState, environment.store), host(environment)),
  create: async (options, environment) => {
    const settings = options as Partial<CreateA2aThreadOptions>;
    const draft = {
      $type: "a2a",
      $v: 1,
      id: settings.id ?? newSortableId(),
      createdAt: new Date().toISOString(),
      metadata: settings.metadata ?? {},
      context: {},
      agentUrl: settings.agentUrl,
      contextId: settings.contextId ?? randomUUID(),
      conversation: [],
    };
    // Validated like any state read back, so a bad agentUrl fails here and not at the first message.
    const state = environment.registry.ensure(a2aThreadType).parse(draft) as A2aThreadState;
    const thread = new A2aThread(state, host(environment));
    await thread.saveNew();
    return thread;
  },
});

function host(environment: BindEnvironment) {
  const adapter = findA2aAdapter(environment.adapters);
  return {
    ...(environment.store ? { store: environment.store } : {}),
    ...(adapter ? { clients: adapter.clients } : {}),
  };
}
