import {
  type RunConfig,
  runTargetType,
  SERVICE_THREAD_TYPES,
  type Thread,
  UnsupportedRunConfigError,
  unhonouredSettings,
} from "@skein/thread-core";
import { A2aThread } from "./a2a-thread.js";
import { SOURCE, unsupported } from "./errors.js";

/** How deep wrappers and nested workflows may go before the lookup gives up. */
const MAX_NESTING = 8;

/**
 * The `a2a` thread a run is for: the thread itself, the one a wrapper holds as `inner` (thread-service hands
 * runners a wrapper), or a workflow's `main` sub-thread.
 */
export function a2aThreadOf(thread: Thread): A2aThread | undefined {
  let current: unknown = thread;
  for (let depth = 0; depth < MAX_NESTING && typeof current === "object" && current !== null; depth++) {
    if (current instanceof A2aThread) return current;
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

/**
 * Whether a2aRunner for `agentUrl` serves `thread`: an `a2a` thread with that agent, and threads whose log
 * skein keeps (memory, fs, redis, …). Not another service's thread (`openai.*`, `foundry.*`), not a stored
 * `a2a.task` (its server writes it), not an `a2a` thread with another agent.
 */
export function servesThread(thread: Thread, agentUrl: string): boolean {
  const type = runTargetType(thread);
  if (type === undefined) return false;
  if (type === "a2a") return a2aThreadOf(thread)?.agentUrl === agentUrl;
  return !SERVICE_THREAD_TYPES.has(type);
}

/**
 * Throws before any request when a2aRunner cannot serve the thread, or is given run settings: an A2A agent
 * owns its model, instructions and context, and the runner sends it only the new user message, so no run
 * setting (not even `maxInputTokens`: the agent decides what its model reads) can be honoured.
 */
export function assertRunnable(thread: Thread, agentUrl: string, config: RunConfig | undefined): void {
  const type = runTargetType(thread) ?? thread.type;
  const other = a2aThreadOf(thread);
  if (other && other.agentUrl !== agentUrl) {
    throw unsupported(
      "a2a",
      "running another agent",
      `the thread talks to ${other.agentUrl}, not ${agentUrl}.`,
    );
  }
  if (!servesThread(thread, agentUrl)) {
    throw unsupported(
      type,
      "runs by a2aRunner",
      type === "workflow"
        ? "the workflow has no main sub-thread this process can open. Nothing was sent."
        : "its history lives with another service (or, for a2a.task, is written by its A2A server); run it with that service's runner, or copy its messages into a local thread. Nothing was sent.",
    );
  }
  const refused = unhonouredSettings(config, []);
  if (refused.length === 0) return;
  throw new UnsupportedRunConfigError(
    type,
    refused,
    "an A2A agent owns its model, instructions and context, and a2aRunner sends it only the new user message; set these on the agent. Nothing was sent.",
    { source: SOURCE },
  );
}
