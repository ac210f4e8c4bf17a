import type { Message, RunOptions, Thread } from "@skein/thread-core";
import { assertViewWithinBudget } from "@skein/thread-core/driver";
import type { FoundryAdapter, FoundryOpenAIClient } from "./adapter-lookup.js";
import {
  agentReference,
  assertResponseCompleted,
  type ResponseRecord,
} from "./conversation/agent-response.js";
import { itemToMessage } from "./conversation/conversation-items.js";
import { messageToItems } from "./conversation/message-items.js";
import { FoundryConfigurationError, SOURCE } from "./errors.js";
import { rejectUnhonouredConfig } from "./run-config.js";
import { callService } from "./service-call.js";

type ResponseCreateParams = Parameters<FoundryOpenAIClient["responses"]["create"]>[0];

export interface ViewRunSettings {
  adapter?: FoundryAdapter | undefined;
  agentName?: string | undefined;
  agentVersion?: string | undefined;
}

/** Sends the thread's view to the agent as input (nothing is stored in Foundry) and appends the output. */
export async function runOnView(
  thread: Thread,
  options: ViewRunSettings,
  runOptions: RunOptions,
): Promise<Message[]> {
  const { adapter, agentName } = options;
  if (!adapter || !agentName) {
    throw new FoundryConfigurationError(
      `foundryRunner needs { adapter, agentName } to run an agent on "${thread.type}" threads, which Foundry does not hold.`,
    );
  }
  const { signal, config } = runOptions;
  rejectUnhonouredConfig(thread.type, config, ["model", "maxInputTokens"]);
  const agent = agentReference({ agentName, agentVersion: options.agentVersion }, {}, config);
  const view = await thread.view(
    config?.maxInputTokens === undefined ? {} : { maxTokens: config.maxInputTokens },
  );
  // A view over the budget, or one that had to leave out the newest message (a tool result whose call does
  // not fit with it), is refused, not sent.
  if (config?.maxInputTokens !== undefined) {
    await assertViewWithinBudget(thread, view, config.maxInputTokens, { source: SOURCE });
  }
  const input = view.flatMap((message) => messageToItems(message, thread.type));
  const client = adapter.openAIClient();
  const response = (await callService(
    { operation: "responses.create" },
    { requestTimeoutMs: adapter.settings.requestTimeoutMs, signal },
    (deadline) =>
      client.responses.create({ input, agent_reference: agent } as unknown as ResponseCreateParams, {
        signal: deadline,
      }),
  )) as unknown as ResponseRecord;
  assertResponseCompleted(thread.id, response);
  const createdAt = new Date().toISOString();
  const output = (response.output ?? []).map((item) => itemToMessage(item, createdAt));
  signal?.throwIfAborted();
  return output.length === 0 ? [] : thread.append(output);
}
