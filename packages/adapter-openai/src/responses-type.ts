import { defineThreadType, type MessageInput, type Thread, type ThreadState } from "@skein/thread-core";
import type { z } from "@skein/thread-core/driver";
import {
  assertThreadId,
  type BindEnvironment,
  newSortableId,
  normalizeMessage,
} from "@skein/thread-core/driver";
import type OpenAI from "openai";
import { messageToItems } from "./message-to-items.js";
import { clientFromEnvironment, PACKAGE_NAME } from "./openai-client.js";
import { MAX_PAGE } from "./remote-history.js";
import { ResponsesHistory } from "./responses-history.js";
import { type OpenAIResponsesState, OpenAIResponsesStateSchema, RESPONSES_TYPE } from "./responses-state.js";
import { OpenAIResponsesThread } from "./responses-thread.js";
import { saveNewState } from "./state-document.js";

/** What `store.create("openai.responses", options)` accepts. */
export interface CreateResponsesOptions {
  /** @default a new sortable id */
  id?: string;
  metadata?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /**
   * Continue an existing chain from this stored response. Costs one read of it to count its items
   * (1 request + 1 per 100 items); without it the thread starts empty and costs no request.
   */
  previousResponseId?: string;
  /** Input for the first run. */
  messages?: MessageInput[];
}

/**
 * `openai.responses`: a thread that is a chain of stored responses linked by `previous_response_id`.
 * @example const thread = await store.create("openai.responses", { metadata: { user: "u-7" } });
 */
export const openaiResponsesType = defineThreadType({
  type: RESPONSES_TYPE,
  version: 1,
  packageName: PACKAGE_NAME,
  schema: OpenAIResponsesStateSchema as unknown as z.ZodType<ThreadState, unknown>,
  bind: (state, environment) =>
    new OpenAIResponsesThread(
      state as OpenAIResponsesState,
      clientFromEnvironment(environment, RESPONSES_TYPE),
      environment,
    ),
  create: (options, environment) => createResponsesThread(options as CreateResponsesOptions, environment),
});

async function createResponsesThread(
  options: CreateResponsesOptions,
  environment: BindEnvironment,
): Promise<Thread> {
  const client = clientFromEnvironment(environment, RESPONSES_TYPE);
  const id = options.id ?? newSortableId();
  assertThreadId(id);
  const createdAt = new Date().toISOString();
  const previousResponseId = options.previousResponseId ?? null;
  const state: OpenAIResponsesState = {
    $type: RESPONSES_TYPE,
    $v: 1,
    id,
    createdAt,
    metadata: structuredClone(options.metadata ?? {}),
    context: structuredClone(options.context ?? {}),
    revision: 1,
    previousResponseId,
    length: previousResponseId ? await chainLength(client, id, previousResponseId, createdAt) : 0,
    pending: (options.messages ?? []).map((input, index) => normalizeMessage(input, ["messages", index])),
    checkpoints: [],
    events: [],
  };
  // Refuse what the service cannot hold now, not at the first run.
  for (const message of state.pending) messageToItems(message, { kind: "store", threadType: RESPONSES_TYPE });
  const thread = new OpenAIResponsesThread(state, client, environment);
  await saveNewState(environment, thread);
  return thread;
}

/** Items in a stored chain: its last response's input items (the whole context) and its output. */
async function chainLength(
  client: OpenAI,
  threadId: string,
  responseId: string,
  createdAt: string,
): Promise<number> {
  const history = new ResponsesHistory(client, threadId, { responseId, length: 0, pending: [] }, createdAt);
  let count = (await history.response()).output.length;
  for await (const _item of history.inputItems("asc", MAX_PAGE)) count++;
  return count;
}
