import type { AgentsClient } from "@azure/ai-agents";
import {
  type AppendOptions,
  type Content,
  type Message,
  type MessageInput,
  PartialAppendError,
  type RunConfig,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { normalizeMessage, parseMessage } from "@skein/thread-core/driver";
import { FoundryAgentNotFoundError, FoundryNotFoundError, SOURCE } from "../errors.js";
import { type MessagePage, type PageRequest, readAll } from "../message-window.js";
import { type CopyTarget, RemoteThread } from "../remote-thread.js";
import { type CallContext, callService } from "../service-call.js";
import { FOUNDRY_THREAD, type FoundryAgentThreadState } from "./agent-thread-state.js";
import { firstPage } from "./first-page.js";
import {
  createRun,
  isUnfinished,
  latestRun,
  type RunContext,
  submitToolOutputs,
  toolCallMessage,
  waitForRun,
} from "./run-driver.js";
import { classicRunSettings } from "./run-settings.js";
import { type ClassicMessageInput, threadMessageToMessage, toClassicInput } from "./thread-messages.js";

/** Options of a run on a `foundry.thread` (classic Agents API) thread. */
export interface AgentThreadRunOptions {
  signal?: AbortSignal | undefined;
  config?: RunConfig | undefined;
  /** Another agent (`asst_…`) than the thread's, for a run this call starts. */
  agentId?: string | undefined;
}

type Step = { kind: "message"; input: ClassicMessageInput } | { kind: "outputs"; results: Content[] };

/** A `foundry.thread`: a classic agent thread (threads, messages, runs) and the agent that runs on it. */
export class FoundryAgentThread extends RemoteThread<FoundryAgentThreadState> {
  readonly type = FOUNDRY_THREAD;

  get threadId(): string {
    return this.state.threadId;
  }
  get agentId(): string {
    return this.state.agentId;
  }

  /**
   * Adds user and assistant messages; a tool message's `function_result` contents are submitted as the
   * outputs the thread's run waits for (classic threads keep tool calls and results in run steps, not as
   * messages). Everything is checked before the first request.
   */
  async append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]> {
    this.rejectRevision(options);
    const messages = (Array.isArray(input) ? input : [input]).map((one, index) =>
      normalizeMessage(one, [index]),
    );
    const steps = messages.flatMap((message): Step[] => {
      if (message.role === "tool") return [{ kind: "outputs", results: toolResults(message) }];
      const classic = toClassicInput(message);
      return classic ? [{ kind: "message", input: classic }] : [];
    });
    const stored: Message[] = [];
    for (const [index, step] of steps.entries()) {
      try {
        stored.push(
          step.kind === "outputs"
            ? await this.#submit(step.results)
            : await this.#create(this.threadId, step.input),
        );
      } catch (error) {
        if (index === 0) throw error;
        throw new PartialAppendError(this.id, stored, steps.length - index, { source: SOURCE, cause: error });
      }
    }
    return stored;
  }

  readPage(request: PageRequest): Promise<MessagePage> {
    return this.#listPage(request);
  }

  protected async retrieve(messageId: string): Promise<Message> {
    const found = await this.#call({ operation: "messages.get", point: messageId }, (client, abortSignal) =>
      client.messages.get(this.threadId, messageId, { abortSignal }),
    );
    return threadMessageToMessage(found);
  }

  /**
   * Runs the agent: resumes the thread's unfinished run or starts one, polls it, and returns the messages it
   * made; a run waiting for tool outputs returns its calls as one `function_call` message instead.
   */
  async runAgent(options: AgentThreadRunOptions = {}): Promise<Message[]> {
    const settings = classicRunSettings(options.config);
    const agentId = options.config?.model ?? options.agentId ?? this.agentId;
    const context = this.#runContext(options.signal);
    const unfinished = await latestRun(context);
    let run = isUnfinished(unfinished) ? unfinished : await this.#startRun(context, agentId, settings);
    run = await waitForRun(context, run);
    if (run.status === "requires_action") return [toolCallMessage(run)];
    const runId = run.id;
    return readAll({
      readPage: (request) => this.#listPage(request, runId),
      assertPoint: (messageId) => this.assertPoint(messageId),
    });
  }

  protected async createCopy(): Promise<CopyTarget<FoundryAgentThreadState>> {
    const created = await this.#call({ operation: "threads.create" }, (client, abortSignal) =>
      client.threads.create({ abortSignal }),
    );
    const threadId = created.id;
    return {
      state: { ...this.state, id: threadId, threadId, createdAt: created.createdAt.toISOString() },
      write: async (messages) => {
        for (const message of messages) {
          const classic = toClassicInput(message);
          if (classic) await this.#create(threadId, classic);
        }
      },
      discard: () => this.#deleteThread(threadId),
    };
  }

  protected rebind(state: FoundryAgentThreadState): FoundryAgentThread {
    return new FoundryAgentThread(state, this.adapter, this.environment);
  }

  protected deleteRemote(): Promise<void> {
    return this.#deleteThread(this.threadId);
  }

  protected async verifyRemote(): Promise<void> {
    await this.#call({ operation: "threads.get" }, (client, abortSignal) =>
      client.threads.get(this.threadId, { abortSignal }),
    );
  }

  async #startRun(context: RunContext, agentId: string, settings: ReturnType<typeof classicRunSettings>) {
    try {
      return await createRun(context, agentId, settings);
    } catch (error) {
      // A 404 names the thread or the agent; only a second look says which.
      if (!FoundryNotFoundError.isInstance(error)) throw error;
      await this.verifyRemote();
      throw new FoundryAgentNotFoundError(agentId, { cause: error });
    }
  }

  async #submit(results: Content[]): Promise<Message> {
    const run = await submitToolOutputs(this.#runContext(undefined), results);
    return parseMessage({
      id: `${run.id}/outputs/${String(results[0]?.callId)}`,
      role: "tool",
      createdAt: new Date().toISOString(),
      contents: results,
      metadata: { runId: run.id },
    });
  }

  async #create(threadId: string, input: ClassicMessageInput): Promise<Message> {
    const created = await this.#call({ operation: "messages.create" }, (client, abortSignal) =>
      client.messages.create(threadId, input.role, input.content, { abortSignal }),
    );
    return threadMessageToMessage(created);
  }

  /**
   * One page of `messages.list`. The SDK's iterator stops after the first page (the service sends no next
   * link), so pages are read by hand: an explicit order and `after` cursor, `has_more` from the raw body.
   */
  async #listPage(request: PageRequest, runId?: string): Promise<MessagePage> {
    const { items, hasMore } = await this.#call({ operation: "messages.list" }, (client, abortSignal) =>
      firstPage((onResponse) =>
        client.messages.list(this.threadId, {
          limit: request.limit,
          order: request.order,
          ...(request.after ? { after: request.after } : {}),
          ...(runId ? { runId } : {}),
          abortSignal,
          onResponse,
        }),
      ),
    );
    return {
      messages: items.map(threadMessageToMessage),
      hasMore: hasMore ?? items.length === request.limit,
    };
  }

  async #deleteThread(threadId: string): Promise<void> {
    try {
      await this.#call({ operation: "threads.delete" }, (client, abortSignal) =>
        client.threads.delete(threadId, { abortSignal }),
      );
    } catch (error) {
      if (!FoundryNotFoundError.isInstance(error)) throw error; // already gone is what delete wants
    }
  }

  #runContext(signal: AbortSignal | undefined): RunContext {
    return {
      client: this.adapter.agentsClient(),
      threadId: this.threadId,
      skeinThreadId: this.id,
      settings: this.adapter.settings,
      signal,
      checkCredential: (deadline) => this.adapter.checkAgentsCredential(deadline),
    };
  }

  #call<T>(
    context: Omit<CallContext, "threadId">,
    call: (client: AgentsClient, signal: AbortSignal) => PromiseLike<T>,
  ): Promise<T> {
    const client = this.adapter.agentsClient();
    const limits = {
      ...this.limits(),
      checkCredential: (signal: AbortSignal) => this.adapter.checkAgentsCredential(signal),
    };
    return callService({ ...context, threadId: this.id }, limits, async (signal) => call(client, signal));
  }
}

function toolResults(message: Message): Content[] {
  const results = message.contents.filter((content) => content.type === "function_result");
  if (results.length === 0 || results.length !== message.contents.length) {
    throw new UnsupportedOperationError(
      FOUNDRY_THREAD,
      "tool messages other than function results",
      "a classic thread takes tool outputs for the run waiting for them, and nothing else in tool messages. Nothing was written.",
      { source: SOURCE },
    );
  }
  return results;
}
