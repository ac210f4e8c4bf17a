import { type RunOptions, type Thread, UnsupportedRunConfigError } from "@skein/thread-core";
import {
  refuseTransient,
  requireServedTarget,
  runTarget,
  servedTarget,
  unhonouredSettings,
} from "@skein/thread-core/driver";
import { A2aThread } from "./a2a-thread.js";
import { SOURCE, unsupported } from "./errors.js";

/** Which threads a2aRunner serves (thread-core's `servedTarget` reads it). */
const REACH = { runner: "a2aRunner", source: SOURCE, serviceTypes: new Set(["a2a"]), local: true };

/**
 * The `a2a` thread a run is for (thread-core's `runTarget`: the thread itself, the one a wrapper holds as
 * `inner`, a workflow's `main` sub-thread), if the run acts on one.
 */
export function a2aThreadOf(thread: Thread): A2aThread | undefined {
  const target = runTarget(thread);
  return target instanceof A2aThread ? target : undefined;
}

/**
 * Whether a2aRunner for `agentUrl` serves `thread`: an `a2a` thread with that agent, and threads whose log
 * skein keeps (memory, fs, redis, …). Not another service's thread (`openai.*`, `foundry.*`), not a stored
 * `a2a.task` (its server writes it), not an `a2a` thread with another agent.
 */
export function servesThread(thread: Thread, agentUrl: string): boolean {
  const target = servedTarget(thread, REACH);
  if (!target) return false;
  return target.type !== "a2a" || (target instanceof A2aThread && target.agentUrl === agentUrl);
}

/**
 * Throws before any request when a2aRunner cannot serve the thread, or is given run settings: an A2A agent
 * owns its model, instructions and context, and the runner sends it only the new user message, so no run
 * setting (not even `maxInputTokens`: the agent decides what its model reads) can be honoured.
 */
export function assertRunnable(thread: Thread, agentUrl: string, options: RunOptions): void {
  const target = requireServedTarget(thread, REACH);
  const type = target.type;
  if (type === "a2a" && !(target instanceof A2aThread && target.agentUrl === agentUrl)) {
    const other = target instanceof A2aThread ? target.agentUrl : "an agent this runner cannot see";
    throw unsupported("a2a", "running another agent", `the thread talks to ${other}, not ${agentUrl}.`);
  }
  // The agent is sent only the new user message: messages for this run alone would never reach it.
  refuseTransient(type, options, { runner: "a2aRunner", source: SOURCE });
  const refused = unhonouredSettings(options.config, []);
  if (refused.length === 0) return;
  throw new UnsupportedRunConfigError(
    type,
    refused,
    "an A2A agent owns its model, instructions and context, and a2aRunner sends it only the new user message; set these on the agent. Nothing was sent.",
    { source: SOURCE },
  );
}
