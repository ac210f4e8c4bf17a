import { MessageTooLargeError } from "./errors.js";
import type { JsonValue } from "./json.js";
import { estimateTokens } from "./local/view.js";
import type { Message } from "./message.js";
import type { Thread } from "./thread.js";
import type { ThreadState } from "./thread-type.js";

/** What a thread runs with: fixed when a thread-service thread is created. */
export interface RunConfig {
  systemPrompt?: string;
  /** The model or agent to call, in the runner's own terms. */
  model?: string;
  temperature?: number;
  thinkingLevel?: "none" | "low" | "medium" | "high";
  maxInputTokens?: number;
  maxOutputTokens?: number;
  /** A JSON Schema the model's final answer must match (the design's `structuredOutputSchema`). */
  outputSchema?: Record<string, JsonValue>;
  /** The application's labels for the thread (grouping, billing, telemetry); never sent as content. */
  tags?: readonly string[];
  /** The model must read images; a runner whose model cannot refuses the run before any request. */
  imageCapabilityNeeded?: boolean;
  /** The run must produce embeddings rather than text; a runner that cannot refuses before any request. */
  embeddingOutputNeeded?: boolean;
  /** Anything else the runner understands. */
  parameters?: Record<string, JsonValue>;
}

export interface RunOptions {
  /** Aborts the model call; the runner stops and appends nothing more. */
  signal?: AbortSignal;
  config?: RunConfig;
}

/**
 * Drives a model on a thread: sends what the thread holds that the model has not seen (its view for
 * local threads, only the new input for remote ones), appends the model's output as each message
 * completes, and returns the messages it appended.
 */
export interface ThreadRunner {
  readonly specificationVersion: "v1";
  /**
   * Whether this runner can serve `thread` at all (its type, its service). `run` on a thread it cannot
   * serve throws `UnsupportedOperationError` before any request is made; callers such as thread-service
   * ask this when a thread is created, not at its first message.
   */
  supports(thread: Thread): boolean;
  run(thread: Thread, options?: RunOptions): Promise<Message[]>;
}

/**
 * Thread types whose history a remote service keeps and runs: only that service's runner serves them. Any
 * other runner would send their messages to the wrong service, or append output the type cannot hold.
 */
export const SERVICE_THREAD_TYPES: ReadonlySet<string> = new Set([
  "openai.conversation",
  "openai.responses",
  "foundry.conversation",
  "foundry.thread",
  "a2a",
  "a2a.task",
]);

/** How deep wrappers and nested workflows may go before the lookup gives up. */
const MAX_NESTING = 8;

/**
 * The type of the thread a run acts on: a workflow runs as its `main` sub-thread (its append and view stand
 * for it), through any wrapper (`inner`, as thread-service hands runners). `undefined` when a workflow has
 * no main sub-thread this process can open.
 * @example if (!SERVICE_THREAD_TYPES.has(runTargetType(thread) ?? "workflow")) runOnView(thread);
 */
export function runTargetType(thread: Thread): string | undefined {
  let current: Thread = thread;
  for (let depth = 0; depth < MAX_NESTING; depth++) {
    if (current.type !== "workflow") return current.type;
    const inner = (current as { inner?: unknown }).inner;
    if (typeof inner === "object" && inner !== null) {
      current = inner as Thread;
      continue;
    }
    const subThread = (current as { thread?: (key: string) => Thread }).thread;
    if (typeof subThread !== "function") return stateTargetType(current.toJSON(), depth);
    try {
      current = subThread.call(current, "main");
    } catch {
      return undefined; // no main sub-thread, or one whose adapter is not installed here
    }
  }
  return undefined;
}

function stateTargetType(state: ThreadState, depth: number): string | undefined {
  if (state.$type !== "workflow") return state.$type;
  const main = (state.threads as Record<string, ThreadState> | undefined)?.main;
  return main && depth < MAX_NESTING ? stateTargetType(main, depth + 1) : undefined;
}

/**
 * The settings of `config` that a runner does not honour on a thread type, given those it does. Only
 * settings that ask for something count: `undefined`, `false` and an empty `parameters` ask for nothing.
 * `tags` is never refused: it labels the thread for the application and is never sent anywhere.
 */
export function unhonouredSettings(config: RunConfig | undefined, honoured: readonly string[]): string[] {
  return Object.entries(config ?? {})
    .filter(([key, value]) => value !== undefined && value !== false && key !== "tags")
    .filter(([key, value]) => !(key === "parameters" && Object.keys(value as object).length === 0))
    .map(([key]) => key)
    .filter((key) => !honoured.includes(key));
}

/**
 * Refuses the input of a run that does not fit `maxInputTokens`: a view keeps its newest message even when
 * that message (with the system messages, which always stay) is over the budget on its own, rather than
 * return nothing; a runner must not send it. `MessageTooLargeError` names that message.
 */
export function assertInputWithinBudget(
  threadId: string,
  input: readonly Message[],
  maxInputTokens: number,
  options: { countTokens?: (message: Message) => number; source?: string } = {},
): void {
  const countTokens = options.countTokens ?? estimateTokens;
  let tokens = 0;
  let newest: Message | undefined;
  for (const message of input) {
    tokens += countTokens(message);
    if (message.role !== "system") newest = message;
  }
  if (tokens <= maxInputTokens || !newest) return;
  const source = options.source === undefined ? {} : { source: options.source };
  throw new MessageTooLargeError(threadId, newest.id, tokens, maxInputTokens, source);
}
