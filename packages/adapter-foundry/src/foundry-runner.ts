import {
  createRegistry,
  type Message,
  type RunOptions,
  type Thread,
  type ThreadRunner,
  type ThreadState,
  type ThreadType,
} from "@skein/thread-core";
import type { FoundryAdapter } from "./adapter-lookup.js";
import type { AgentThreadRunOptions } from "./classic/agent-thread.js";
import { FOUNDRY_THREAD } from "./classic/agent-thread-state.js";
import { foundryThreadType } from "./classic/agent-thread-type.js";
import { FOUNDRY_CONVERSATION } from "./conversation/conversation-state.js";
import type { ConversationRunOptions } from "./conversation/conversation-thread.js";
import { foundryConversationType } from "./conversation/conversation-thread-type.js";
import { FoundryConfigurationError } from "./errors.js";
import { runOnView } from "./view-runner.js";

const FOUNDRY_TYPES: ReadonlySet<string> = new Set([FOUNDRY_CONVERSATION, FOUNDRY_THREAD]);
/** How deep wrappers may nest before the runner stops looking for the thread inside. */
const MAX_WRAPPERS = 8;

export interface FoundryRunnerOptions {
  /** The agent (by name) for conversations and for threads of other types. @default the thread's agent */
  agentName?: string;
  /** Pins the version of `agentName`. @default the agent's latest */
  agentVersion?: string;
  /** The agent (`asst_…`) for classic threads. @default the thread's agent */
  agentId?: string;
  /**
   * The adapter whose project runs the agent on threads of other types (memory, fs, redis, …), and that
   * binds a Foundry thread's state again when it reaches the runner wrapped.
   */
  adapter?: FoundryAdapter;
}

type ConversationLike = Thread & { runAgent(options: ConversationRunOptions): Promise<Message[]> };
type AgentThreadLike = Thread & { runAgent(options: AgentThreadRunOptions): Promise<Message[]> };

/**
 * Runs a Foundry agent on a thread and returns what it appended. On `foundry.conversation` and
 * `foundry.thread` the agent reads the remote thread itself; on any other thread it is sent the thread's
 * view and its output is appended there. A classic run that needs tool outputs returns its calls as a
 * `function_call` message; append the `function_result`s and run again to continue.
 * @example const reply = await foundryRunner().run(thread, { signal });
 */
export function foundryRunner(options: FoundryRunnerOptions = {}): ThreadRunner {
  return {
    specificationVersion: "v1",
    async run(thread: Thread, runOptions: RunOptions = {}): Promise<Message[]> {
      const { signal, config } = runOptions;
      signal?.throwIfAborted();
      const foundry = await foundryThreadOf(thread, options.adapter);
      if (foundry?.type === FOUNDRY_CONVERSATION) {
        const agent = { agentName: options.agentName, agentVersion: options.agentVersion };
        return (foundry as ConversationLike).runAgent({ signal, config, agent });
      }
      if (foundry) return (foundry as AgentThreadLike).runAgent({ signal, config, agentId: options.agentId });
      return runOnView(thread, options, runOptions);
    },
  };
}

/**
 * The Foundry thread a run is for: the thread itself, the one a wrapper holds (thread-service hands runners
 * a `RunThread` with the real thread as `inner`), or, given an adapter, the state bound again.
 */
async function foundryThreadOf(
  thread: Thread,
  adapter: FoundryAdapter | undefined,
): Promise<Thread | undefined> {
  let current: unknown = thread;
  for (let depth = 0; depth < MAX_WRAPPERS && typeof current === "object" && current !== null; depth++) {
    if (FOUNDRY_TYPES.has((current as Thread).type) && hasRunAgent(current)) return current as Thread;
    current = (current as { inner?: unknown }).inner;
  }
  if (!FOUNDRY_TYPES.has(thread.type)) return undefined;
  if (!adapter) {
    throw new FoundryConfigurationError(
      `This "${thread.type}" thread is wrapped in an object that hides its Foundry behaviour; pass foundryRunner({ adapter }) to bind its state again.`,
    );
  }
  const registry = createRegistry().register(foundryConversationType).register(foundryThreadType);
  const state = registry.parse(thread.toJSON()) as ThreadState;
  const bind = registry.get(thread.type)?.bind as NonNullable<ThreadType["bind"]>;
  return bind(state, { registry, adapters: [adapter] });
}

function hasRunAgent(thread: unknown): boolean {
  return typeof (thread as Partial<ConversationLike>).runAgent === "function";
}
