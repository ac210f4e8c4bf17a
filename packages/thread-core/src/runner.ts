import { MessageTooLargeError, UnsupportedOperationError } from "./errors.js";
import { estimateTokens } from "./local/view.js";
import type { Message } from "./message.js";
import type { RemoteHistoryThread, RunConfig, RunOptions, ThreadWrapper } from "./spec/thread-runner.js";
import type { Thread } from "./thread.js";

export type * from "./spec/thread-runner.js";

/** How deep wrappers and nested workflows may go before the lookup gives up (a cycle, or a misuse). */
const MAX_NESTING = 8;

/**
 * The thread a run acts on, with its type's behaviour: the thread itself, the thread a wrapper holds as
 * `inner` (as deep as wrappers go), and for a workflow its `main` sub-thread, whose append and view the
 * workflow's stand for. `undefined` when a workflow has no main sub-thread this process can open. Every
 * runner finds its thread through this, and so does `supports`, so both see the same thread. Never
 * serialises a thread.
 * @example const target = runTarget(thread); if (target?.type === "a2a") return replyOf(target);
 */
export function runTarget(thread: Thread): Thread | undefined {
  let current: Thread = thread;
  for (let depth = 0; depth < MAX_NESTING; depth++) {
    const inner = (current as Partial<ThreadWrapper>).inner;
    if (typeof inner === "object" && inner !== null) {
      current = inner;
      continue;
    }
    if (current.type !== "workflow") return current;
    const subThread = (current as { thread?: (key: string) => Thread }).thread;
    if (typeof subThread !== "function") return undefined;
    try {
      current = subThread.call(current, "main");
    } catch {
      return undefined; // no main sub-thread, or one whose adapter is not installed here
    }
  }
  return undefined;
}

/**
 * The type of the thread a run acts on (`runTarget(thread)?.type`).
 * @example if (runTargetType(thread) === "memory") runOnView(thread);
 */
export function runTargetType(thread: Thread): string | undefined {
  return runTarget(thread)?.type;
}

/** Whether a remote service keeps `thread`'s history: the thread names that service (`RemoteHistoryThread`). */
export function isServiceThread(thread: Thread): boolean {
  return typeof (thread as Partial<RemoteHistoryThread>).historyService === "string";
}

/** Which threads a runner serves: its own service's types, and whether it runs any thread skein keeps. */
export interface RunnerReach {
  /** The runner's name in errors, as `runs by <name>`. */
  runner: string;
  /** The `[package]` the refusal names. */
  source: string;
  /** The thread types of the runner's own service (which it serves whatever `local` says). */
  serviceTypes: ReadonlySet<string>;
  /** Whether it serves threads whose log skein keeps (memory, fs, redis, custom types), through their view. */
  local: boolean;
}

/**
 * The thread a run acts on when the runner serves it (`runTarget`), else `undefined`: a workflow without a
 * main sub-thread it can open, another service's thread, or a local thread the runner cannot run.
 */
export function servedTarget(thread: Thread, reach: RunnerReach): Thread | undefined {
  const target = runTarget(thread);
  if (!target) return undefined;
  if (reach.serviceTypes.has(target.type)) return target;
  return reach.local && !isServiceThread(target) ? target : undefined;
}

/**
 * `servedTarget`, or `UnsupportedOperationError` saying why the runner cannot serve the thread; thrown
 * before any request, so "Nothing was sent" holds.
 */
export function requireServedTarget(thread: Thread, reach: RunnerReach): Thread {
  const target = servedTarget(thread, reach);
  if (target) return target;
  const found = runTarget(thread);
  const reason = !found
    ? "the workflow has no main sub-thread this process can open."
    : isServiceThread(found)
      ? "its history lives with another service; run it with that service's runner, or copy its messages into a local thread."
      : "this runner runs only its own service's threads.";
  throw new UnsupportedOperationError(
    found?.type ?? thread.type,
    `runs by ${reach.runner}`,
    `${reason} Nothing was sent.`,
    {
      source: reach.source,
    },
  );
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

/** How far back the calls a newest tool result answers are looked for. */
const PAIR_LOOKBACK = 64;

/**
 * Refuses a local run whose view, cut to `maxInputTokens`, does not fit or does not hold the thread's newest
 * message: a view never sends a tool result without its call, so a newest result whose call (or whose
 * call and result together) is over the budget is cut, and the view left is only system messages, which
 * fit. Sending that would pay for a request without the new input. `MessageTooLargeError` names the newest
 * message, with the tokens it needs together with its calls and the view's system messages. One read of
 * the newest message; a second, of the last 64, only to find the calls of a result that is refused.
 * @example const view = await thread.view({ maxTokens }); await assertViewWithinBudget(thread, view, maxTokens);
 */
export async function assertViewWithinBudget(
  thread: Thread,
  view: readonly Message[],
  maxInputTokens: number,
  options: { countTokens?: (message: Message) => number; source?: string } = {},
): Promise<void> {
  assertInputWithinBudget(thread.id, view, maxInputTokens, options);
  const [newest] = await thread.messages({ last: 1 });
  if (!newest || view.some((message) => message.id === newest.id)) return;
  const answered = new Set(callIdsOf(newest, "function_result"));
  const recent = answered.size === 0 ? [] : await thread.messages({ last: PAIR_LOOKBACK });
  const calls = recent.filter(
    (message) => message !== newest && callIdsOf(message, "function_call").some((id) => answered.has(id)),
  );
  const countTokens = options.countTokens ?? estimateTokens;
  let tokens = 0;
  for (const message of [...view, ...calls, newest]) tokens += countTokens(message);
  const source = options.source === undefined ? {} : { source: options.source };
  throw new MessageTooLargeError(thread.id, newest.id, tokens, maxInputTokens, source);
}

function callIdsOf(message: Message, type: "function_call" | "function_result"): string[] {
  const ids: string[] = [];
  for (const content of message.contents) {
    if (content.type === type && typeof content.callId === "string") ids.push(content.callId);
  }
  return ids;
}

/**
 * Refuses a run with `transient` messages on a runner path that does not send the thread's view, before
 * any request: the messages would otherwise be dropped without a word.
 */
export function refuseTransient(
  type: string,
  options: RunOptions | undefined,
  detail: { runner: string; source: string },
): void {
  if (!options?.transient?.length) return;
  throw new UnsupportedOperationError(
    type,
    `messages for one run by ${detail.runner}`,
    "the runner does not send this thread's view (the service reads the history it keeps, or only the new message), so context providers' messages and attachments would never reach it; give them as instructions, or append them to the thread. Nothing was sent.",
    { source: detail.source },
  );
}
