import type { Message, RunConfig, RunOptions, Thread, ThreadRunner, ViewOptions } from "@skein/thread-core";
import { assertInputWithinBudget, assertViewWithinBudget, refuseTransient } from "@skein/thread-core/driver";
import type OpenAI from "openai";
import type { Response, ResponseCreateParamsNonStreaming, Tool } from "openai/resources/responses/responses";
import { RunAbortedError, SOURCE } from "./errors.js";
import { itemToMessage, type ServiceItem } from "./item-to-message.js";
import { messagesToItems } from "./message-to-items.js";
import { type ClientOptions, resolveClient } from "./openai-client.js";
import { runResponse } from "./response-run.js";
import { RESPONSES_TYPE } from "./responses-state.js";
import { withAdvance } from "./run-advance.js";
import { keepToolCallsPaired, withRunRecord } from "./run-output.js";
import { type RequestDefaults, requestBody } from "./run-request.js";
import { assertRunnable, servesThread } from "./run-support.js";
import { type RunTarget, runTargetOf } from "./run-target.js";

/** Options of `openaiRunner`: its client and settings. */
export interface OpenAIRunnerOptions extends ClientOptions {
  /** The model, unless the run's `config.model` names one. */
  model?: string;
  /** Function tools (and built-in tools) the model may call; calls come back as `function_call` contents. */
  tools?: Tool[];
  /** Request fields (snake_case) sent with every run, under the run's own `config.parameters`. */
  parameters?: Record<string, unknown>;
  /** How a local thread's view is cut; `config.maxInputTokens` sets `maxTokens`. @default the whole thread */
  view?: ViewOptions;
  /** Read output as server-sent events, so each message lands as soon as it completes. @default true */
  stream?: boolean;
}

/**
 * A runner that drives an OpenAI model on any thread: an `openai.conversation` runs in its conversation,
 * an `openai.responses` thread continues its chain, and any other thread sends its view (`store: false`)
 * and gets the output appended, message by message. One `responses.create` per run. Another service's
 * thread (`foundry.*`, `a2a`), or a run setting it cannot honour, is refused before any request.
 * @example const messages = await openaiRunner({ client, model: "gpt-5" }).run(thread);
 */
export function openaiRunner(options: OpenAIRunnerOptions = {}): ThreadRunner {
  let client: OpenAI | undefined;
  return Object.freeze({
    specificationVersion: "v1" as const,
    supports: servesThread,
    run: async (thread: Thread, runOptions: RunOptions = {}) => {
      const target = assertRunnable(thread, runOptions.config);
      const plan = runTargetOf(target);
      // The service reads only the history it keeps: messages for this run alone cannot reach it.
      if (plan.kind !== "local")
        refuseTransient(target.type, runOptions, { runner: "openaiRunner", source: SOURCE });
      client ??= resolveClient(options);
      return runThread(client, options, thread, plan, runOptions);
    },
  });
}

async function runThread(
  client: OpenAI,
  options: OpenAIRunnerOptions,
  thread: Thread,
  target: RunTarget,
  { signal, config = {} }: RunOptions,
): Promise<Message[]> {
  if (signal?.aborted) throw new RunAbortedError(thread.id, []);
  const body = requestBody(config, options as RequestDefaults);
  const countTokens = options.view?.countTokens;
  const run: RunContext = { client, thread, signal, stream: options.stream ?? true, body, countTokens };
  if (target.kind === "local") return runLocal(run, viewOptions(options.view, config), config.maxInputTokens);
  if (config.maxInputTokens !== undefined) {
    await assertNewInputFits(run, target, config.maxInputTokens);
    run.body = withCompaction(run.body, config.maxInputTokens);
  }
  return runRemote(run, target);
}

/**
 * The service keeps an `openai.*` thread's history, so skein cannot cut it; the Responses API's own
 * budget is server-side compaction: once the rendered input crosses `compact_threshold` tokens, the service
 * replaces the earlier context with one encrypted compaction item (an `openai.item` message in the thread).
 * A threshold, not a cap. `parameters.context_management` (or `truncation`) of the caller's own wins.
 */
function withCompaction(
  body: ResponseCreateParamsNonStreaming,
  maxInputTokens: number,
): ResponseCreateParamsNonStreaming {
  if (body.context_management !== undefined || body.truncation !== undefined) return body;
  return { ...body, context_management: [{ type: "compaction", compact_threshold: maxInputTokens }] };
}

/**
 * No compaction can make room for a new message larger than the whole budget: the new input is refused
 * before the model is asked. A chain's new input is its pending messages; a conversation's is its newest
 * item, already on the service (one read), unless that is the model's own output.
 */
async function assertNewInputFits(
  run: RunContext,
  target: Exclude<RunTarget, { kind: "local" }>,
  maxInputTokens: number,
): Promise<void> {
  const input =
    target.kind === "responses"
      ? target.pending
      : (await run.thread.messages({ last: 1 })).filter((message) => message.role !== "assistant");
  const budget = { source: SOURCE, ...(run.countTokens ? { countTokens: run.countTokens } : {}) };
  for (const message of input) assertInputWithinBudget(run.thread.id, [message], maxInputTokens, budget);
}

interface RunContext {
  client: OpenAI;
  thread: Thread;
  signal: AbortSignal | undefined;
  stream: boolean;
  body: ResponseCreateParamsNonStreaming;
  countTokens: ViewOptions["countTokens"];
}

/**
 * Sends the view, appends each output message as the next one completes, the last with the run's usage. A
 * view over `maxInputTokens`, or one that had to leave out the thread's newest message (a tool result whose
 * call does not fit with it), is refused, not sent.
 */
async function runLocal(
  run: RunContext,
  view: ViewOptions,
  maxInputTokens: number | undefined,
): Promise<Message[]> {
  const messages = await run.thread.view(view);
  if (maxInputTokens !== undefined) {
    const budget = { source: SOURCE, ...(run.countTokens ? { countTokens: run.countTokens } : {}) };
    await assertViewWithinBudget(run.thread, messages, maxInputTokens, budget);
  }
  const input = keepToolCallsPaired(messagesToItems(messages, { kind: "model" }));
  const appended: Message[] = [];
  let held: Message | undefined;
  const append = async (message: Message) => {
    if (run.signal?.aborted) return;
    appended.push(...(await run.thread.append(message)));
  };
  // The service keeps nothing with store: false, so reasoning must come back encrypted to be sent again.
  const include = [
    ...(run.body.include ?? []),
    ...(run.body.reasoning ? ["reasoning.encrypted_content" as const] : []),
  ];
  const reasoning = include.length > 0 ? { include: [...new Set(include)] } : {};
  try {
    const response = await runResponse(
      run.client,
      { ...run.body, ...reasoning, input, store: false },
      {
        signal: run.signal,
        stream: run.stream,
        threadId: run.thread.id,
        onItem: async (item) => {
          if (held) await append(held);
          held = itemToMessage(item as unknown as ServiceItem, new Date().toISOString());
        },
      },
    );
    if (held) await append(withRunRecord(held, response));
    if (run.signal?.aborted) throw new RunAbortedError(run.thread.id, []);
    return appended;
  } catch (error) {
    if (RunAbortedError.isInstance(error))
      throw new RunAbortedError(run.thread.id, appended, { cause: error });
    throw error;
  }
}

/**
 * The service keeps the history: a conversation gets only `conversation` (its items are the input), a
 * response chain its pending input and `previous_response_id`. Output is already stored by the service;
 * a response chain's thread is moved to the new response through `append`.
 */
async function runRemote(run: RunContext, target: Exclude<RunTarget, { kind: "local" }>): Promise<Message[]> {
  const chain = target.kind === "responses" ? target : undefined;
  const input = chain ? messagesToItems(chain.pending, { kind: "store", threadType: RESPONSES_TYPE }) : [];
  const body: ResponseCreateParamsNonStreaming = {
    ...run.body,
    // A conversation's items are the input; nothing is sent beside them.
    ...(input.length > 0 ? { input } : {}),
    store: true,
    ...(target.kind === "conversation" ? { conversation: target.conversationId } : {}),
    ...(chain?.previousResponseId ? { previous_response_id: chain.previousResponseId } : {}),
  };
  const output: Message[] = [];
  const response = await runResponse(run.client, body, {
    signal: run.signal,
    stream: run.stream,
    threadId: run.thread.id,
    onItem: async (item) => {
      output.push(itemToMessage(item as unknown as ServiceItem, new Date().toISOString()));
    },
  });
  const last = output.pop();
  const messages = last ? [...output, withRunRecord(last, response)] : [];
  if (!chain) return messages;
  const advance = {
    responseId: response.id,
    previousResponseId: chain.previousResponseId,
    revision: chain.revision,
    sent: chain.pending.map((message) => message.id),
    items: input.length + response.output.length,
  };
  // A response without output still moves the chain; an empty message carries the advance.
  const carrier = messages.length > 0 ? messages : [emptyMessage(response)];
  const moved = await run.thread.append(withAdvance(carrier, advance));
  return messages.length > 0 ? moved : [];
}

function emptyMessage(response: Response): Message {
  return { id: response.id, role: "assistant", createdAt: new Date().toISOString(), contents: [] };
}

function viewOptions(view: ViewOptions | undefined, config: RunConfig): ViewOptions {
  return { ...view, ...(config.maxInputTokens === undefined ? {} : { maxTokens: config.maxInputTokens }) };
}
