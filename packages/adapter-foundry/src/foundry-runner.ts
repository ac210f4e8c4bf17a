import {
  assertInputWithinBudget,
  createRegistry,
  type Message,
  type RunConfig,
  type RunOptions,
  runTargetType,
  SERVICE_THREAD_TYPES,
  type Thread,
  type ThreadRunner,
  type ThreadState,
  type ThreadType,
  UnsupportedOperationError,
} from "@skein/thread-core";
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
 * `function_call` message; append the `function_result`s and run again to continue. Another service's
 * thread (`openai.*`, `a2a`), or a run setting the thread type cannot honour, is refused before any request.
 * @example const reply = await foundryRunner().run(thread, { signal });
 */
export function foundryRunner(options: FoundryRunnerOptions = {}): ThreadRunner {
  return {
    specificationVersion: "v1",
    supports: (thread: Thread) => servesThread(thread, options),
    async run(thread: Thread, runOptions: RunOptions = {}): Promise<Message[]> {
      const { signal, config } = runOptions;
      signal?.throwIfAborted();
      refuseOtherServices(thread);
      const foundry = await foundryThreadOf(thread, options.adapter);
      if (foundry?.type === FOUNDRY_CONVERSATION) {
        const agent = { agentName: options.agentName, agentVersion: options.agentVersion };
        return (foundry as ConversationLike).runAgent({ signal, config, agent });
      }
      if (foundry) {
        await assertNewMessageFits(foundry, config);
        return (foundry as AgentThreadLike).runAgent({ signal, config, agentId: options.agentId });
      }
      return runOnView(thread, options, runOptions);
    },
  };
}

/**
 * Whether foundryRunner serves `thread`: `foundry.conversation` and `foundry.thread` (found inside a wrapper,
 * or bound again with `adapter`), and, given `adapter` and `agentName`, threads whose log skein keeps
 * (memory, fs, redis, …), through their view. Not another service's thread (`openai.*`, `a2a`).
 */
function servesThread(thread: Thread, options: FoundryRunnerOptions): boolean {
  const type = runTargetType(thread);
  if (type === undefined) return false;
  if (FOUNDRY_TYPES.has(type)) return reachableFoundryThread(thread) !== undefined || !!options.adapter;
  if (SERVICE_THREAD_TYPES.has(type)) return false;
  return !!options.adapter && !!options.agentName;
}

/**
 * Another service's thread keeps its history with that service, which would never see the agent's output;
 * appending the output there would send it to another agent or fail after the agent ran. A runner without
 * the `adapter` or `agentName` it needs says so itself (`FoundryConfigurationError`), also before any request.
 */
function refuseOtherServices(thread: Thread): void {
  const type = runTargetType(thread);
  if (type !== undefined && (FOUNDRY_TYPES.has(type) || !SERVICE_THREAD_TYPES.has(type))) return;
  throw new UnsupportedOperationError(
    type ?? thread.type,
    "runs by foundryRunner",
    type === undefined
      ? "the workflow has no main sub-thread this process can open. Nothing was sent."
      : "its history lives with another service; run it with that service's runner, or copy its messages into a local thread. Nothing was sent.",
    { source: SOURCE },
  );
}

/**
 * A classic run's `max_prompt_tokens` ends the run `incomplete` once its prompt is over budget, after the
 * agent was paid: a newest message larger than the whole budget is refused first (one read), as are the
 * settings the thread type cannot take.
 */
async function assertNewMessageFits(thread: Thread, config: RunConfig | undefined): Promise<void> {
  if (config?.maxInputTokens === undefined) return;
  classicRunSettings(config);
  const newest = await thread.messages({ last: 1 });
  assertInputWithinBudget(thread.id, newest, config.maxInputTokens, { source: SOURCE });
}

/**
 * The Foundry thread a run is for: the thread itself, the one a wrapper holds (thread-service hands runners
 * a `RunThread` with the real thread as `inner`), or, given an adapter, the state bound again.
 */
async function foundryThreadOf(
  thread: Thread,
  adapter: FoundryAdapter | undefined,
): Promise<Thread | undefined> {
  const reachable = reachableFoundryThread(thread);
  if (reachable) return reachable;
  const type = runTargetType(thread);
  if (type === undefined || !FOUNDRY_TYPES.has(type)) return undefined;
  if (!adapter) {
    throw new FoundryConfigurationError(
      `This "${type}" thread is wrapped in an object that hides its Foundry behaviour; pass foundryRunner({ adapter }) to bind its state again.`,
    );
  }
  const registry = createRegistry().register(foundryConversationType).register(foundryThreadType);
  const state = registry.parse(mainState(thread.toJSON())) as ThreadState;
  const bind = registry.get(type)?.bind as NonNullable<ThreadType["bind"]>;
  return bind(state, { registry, adapters: [adapter] });
}

/** The Foundry thread with its behaviour: the thread, a wrapper's `inner`, or a workflow's `main` sub-thread. */
function reachableFoundryThread(thread: Thread): Thread | undefined {
  let current: unknown = thread;
  for (let depth = 0; depth < MAX_WRAPPERS && typeof current === "object" && current !== null; depth++) {
    if (FOUNDRY_TYPES.has((current as Thread).type) && hasRunAgent(current)) return current as Thread;
    const inner = (current as { inner?: unknown }).inner;
    const main = (current as { thread?: unknown }).thread;
    if (inner !== undefined) current = inner;
    else if ((current as Thread).type === "workflow" && typeof main === "function") {
      try {
        current = main.call(current, "main");
      } catch {
        return undefined; // no main sub-thread, or one this process cannot open
      }
    } else return undefined;
  }
  return undefined;
}

/** A workflow's state stands for its `main` sub-thread's, as far down as workflows nest. */
function mainState(state: ThreadState): ThreadState {
  let current = state;
  for (let depth = 0; depth < MAX_WRAPPERS && current.$type === "workflow"; depth++) {
    const main = (current.threads as Record<string, ThreadState> | undefined)?.main;
    if (!main) break;
    current = main;
  }
  return current;
}

function hasRunAgent(thread: unknown): boolean {
  return typeof (thread as Partial<ConversationLike>).runAgent === "function";
}
