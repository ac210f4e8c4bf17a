import {
  createRegistry,
  type Message,
  type RunConfig,
  type RunOptions,
  type Thread,
  type ThreadRunner,
  type ThreadState,
  type ThreadType,
} from "@skein/thread-core";
import {
  assertInputWithinBudget,
  refuseTransient,
  requireServedTarget,
  servedTarget,
} from "@skein/thread-core/driver";
import type { FoundryAdapter } from "./adapter-lookup.js";
import type { AgentThreadRunOptions } from "./classic/agent-thread.js";
import { FOUNDRY_THREAD } from "./classic/agent-thread-state.js";
import { foundryThreadType } from "./classic/agent-thread-type.js";
import { classicRunSettings } from "./classic/run-settings.js";
import { FOUNDRY_CONVERSATION } from "./conversation/conversation-state.js";
import type { ConversationRunOptions } from "./conversation/conversation-thread.js";
import { foundryConversationType } from "./conversation/conversation-thread-type.js";
import { FoundryConfigurationError, SOURCE } from "./errors.js";
import { runOnView } from "./view-runner.js";

const FOUNDRY_TYPES: ReadonlySet<string> = new Set([FOUNDRY_CONVERSATION, FOUNDRY_THREAD]);

/** Options of `foundryRunner`: the agent to run (by name and version, or a classic agent id) and the adapter whose clients it uses. */
export interface FoundryRunnerOptions {
  /** The agent (by name) for conversations and for threads of other types. @default the thread's agent */
  agentName?: string;
  /** Pins the version of `agentName`. @default the agent's latest */
  agentVersion?: string;
  /** The agent (`asst_…`) for classic threads. @default the thread's agent */
  agentId?: string;
  /**
   * The adapter whose project runs the agent on threads of other types (memory, fs, redis, …), and that
   * binds a Foundry thread's state again when only its state reaches the runner (wrappers that expose their
   * thread as `inner`, such as thread-service's, need no adapter).
   */
  adapter?: FoundryAdapter;
}

type ConversationLike = Thread & { runAgent(options: ConversationRunOptions): Promise<Message[]> };
type AgentThreadLike = Thread & { runAgent(options: AgentThreadRunOptions): Promise<Message[]> };

/**
 * Runs a Foundry agent on a thread and returns what it appended. On `foundry.conversation` and
 * `foundry.thread` the agent reads the remote thread itself; on any other thread it is sent the thread's
 * view and its output is appended there. A classic run that needs tool outputs returns its calls as a
 * `function_call` message; append the `function_result`s and run again to continue. Another service's
 * thread (`openai.*`, `a2a`), or a run setting the thread type cannot honour, is refused before any request.
 * @example const reply = await foundryRunner().run(thread, { signal });
 */
export function foundryRunner(options: FoundryRunnerOptions = {}): ThreadRunner {
  const local = !!options.adapter && !!options.agentName;
  return {
    specificationVersion: "v1",
    supports: (thread: Thread) => {
      const target = servedTarget(thread, { ...REACH, local });
      return !!target && (!FOUNDRY_TYPES.has(target.type) || hasRunAgent(target) || !!options.adapter);
    },
    async run(thread: Thread, runOptions: RunOptions = {}): Promise<Message[]> {
      const { signal, config } = runOptions;
      signal?.throwIfAborted();
      // A local thread without { adapter, agentName } is refused by runOnView, with what to pass.
      const target = requireServedTarget(thread, { ...REACH, local: true });
      if (!FOUNDRY_TYPES.has(target.type)) return runOnView(thread, options, runOptions);
      // The agent reads the thread Foundry keeps: messages for this run alone cannot reach it.
      refuseTransient(target.type, runOptions, { runner: "foundryRunner", source: SOURCE });
      const foundry = await withBehaviour(target, options.adapter);
      if (foundry.type === FOUNDRY_CONVERSATION) {
        const agent = { agentName: options.agentName, agentVersion: options.agentVersion };
        return (foundry as ConversationLike).runAgent({ signal, config, agent });
      }
      await assertNewMessageFits(foundry, config);
      return (foundry as AgentThreadLike).runAgent({ signal, config, agentId: options.agentId });
    },
  };
}

/**
 * Which threads foundryRunner serves (thread-core's `servedTarget`): `foundry.conversation` and
 * `foundry.thread`, found through any wrapper and as a workflow's `main` sub-thread, and, given `adapter` and
 * `agentName`, threads whose log skein keeps (memory, fs, redis, …), through their view. Not another
 * service's thread (`openai.*`, `a2a`).
 */
const REACH = { runner: "foundryRunner", source: SOURCE, serviceTypes: FOUNDRY_TYPES };

/**
 * A classic run's `max_prompt_tokens` ends the run `incomplete` once its prompt is over budget, after the
 * agent was paid: a newest message larger than the whole budget is refused first (one read), unless it is
 * the agent's own output (a run again after it answered sends nothing new), as are the settings the thread
 * type cannot take.
 */
async function assertNewMessageFits(thread: Thread, config: RunConfig | undefined): Promise<void> {
  if (config?.maxInputTokens === undefined) return;
  classicRunSettings(config);
  const newest = (await thread.messages({ last: 1 })).filter((message) => message.role !== "assistant");
  assertInputWithinBudget(thread.id, newest, config.maxInputTokens, { source: SOURCE });
}

/**
 * The Foundry thread with its behaviour (`runAgent`): the run target itself, or, when only its state is
 * reachable (an object that keeps the state but not the behaviour), that state bound again with `adapter`.
 */
async function withBehaviour(target: Thread, adapter: FoundryAdapter | undefined): Promise<Thread> {
  if (hasRunAgent(target)) return target;
  if (!adapter) {
    throw new FoundryConfigurationError(
      `This "${target.type}" thread has no Foundry behaviour (only its state); pass foundryRunner({ adapter }) to bind its state again.`,
    );
  }
  const registry = createRegistry().register(foundryConversationType).register(foundryThreadType);
  const state = registry.parse(target.toJSON()) as ThreadState;
  const bind = registry.get(target.type)?.bind as NonNullable<ThreadType["bind"]>;
  return bind(state, { registry, adapters: [adapter] });
}

function hasRunAgent(thread: unknown): boolean {
  return typeof (thread as Partial<ConversationLike>).runAgent === "function";
}
