import { defineThreadType, type MessageInput } from "@skein/thread-core";
import { assertThreadId, type BindEnvironment } from "@skein/thread-core/driver";
import { type FoundryAdapter, findFoundryAdapter, PACKAGE_NAME } from "../adapter-lookup.js";
import { requireText } from "../create-options.js";
import { assertSameProject } from "../project-check.js";
import { callService } from "../service-call.js";
import { FoundryAgentThread } from "./agent-thread.js";
import {
  FOUNDRY_THREAD,
  type FoundryAgentThreadState,
  FoundryAgentThreadStateSchema,
} from "./agent-thread-state.js";

/** `store.create("foundry.thread", options)`. */
export interface CreateFoundryAgentThreadOptions {
  /** The agent (`asst_…`) that runs on the thread. */
  agentId: string;
  /** Adopts an existing classic thread (`thread_…`) instead of creating one. */
  threadId?: string;
  /** The skein id. @default the classic thread id */
  id?: string;
  metadata?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /** Messages the thread starts with. */
  messages?: MessageInput[];
}

/** `foundry.thread`: a classic Foundry agent thread (`@azure/ai-agents`). */
export const foundryThreadType = defineThreadType<FoundryAgentThreadState>({
  type: FOUNDRY_THREAD,
  version: 1,
  packageName: PACKAGE_NAME,
  schema: FoundryAgentThreadStateSchema,
  bind: (state, environment) => {
    const adapter = findFoundryAdapter(environment, FOUNDRY_THREAD);
    assertSameProject(state, adapter);
    return new FoundryAgentThread(state, adapter, environment);
  },
  create: (options, environment) =>
    createAgentThread(options as Partial<CreateFoundryAgentThreadOptions>, environment),
});

async function createAgentThread(
  options: Partial<CreateFoundryAgentThreadOptions>,
  environment: BindEnvironment,
): Promise<FoundryAgentThread> {
  const agentId = requireText(FOUNDRY_THREAD, options, "agentId");
  if (options.id !== undefined) assertThreadId(options.id);
  const adapter = findFoundryAdapter(environment, FOUNDRY_THREAD);
  const adopted = options.threadId !== undefined;
  const remote = await openThread(adapter, options.threadId);
  const state: FoundryAgentThreadState = {
    $type: FOUNDRY_THREAD,
    $v: 1,
    id: options.id ?? remote.id,
    createdAt: remote.createdAt.toISOString(),
    metadata: structuredClone(options.metadata ?? {}),
    context: structuredClone(options.context ?? {}),
    threadId: remote.id,
    agentId,
    ...(adapter.endpoint === undefined ? {} : { projectEndpoint: adapter.endpoint }),
  };
  const thread = new FoundryAgentThread(state, adapter, environment);
  try {
    if (options.messages?.length) await thread.append(options.messages);
    await thread.persist();
  } catch (error) {
    // A thread this call made and could not finish is removed; an adopted one is left alone.
    if (!adopted) await thread.delete().catch(() => undefined);
    throw error;
  }
  return thread;
}

async function openThread(adapter: FoundryAdapter, threadId: string | undefined) {
  const client = adapter.agentsClient();
  const limits = {
    requestTimeoutMs: adapter.settings.requestTimeoutMs,
    checkCredential: (signal: AbortSignal) => adapter.checkAgentsCredential(signal),
  };
  if (threadId === undefined) {
    return callService({ operation: "threads.create" }, limits, (abortSignal) =>
      client.threads.create({ abortSignal }),
    );
  }
  return callService({ operation: "threads.get", threadId }, limits, (abortSignal) =>
    client.threads.get(threadId, { abortSignal }),
  );
}
