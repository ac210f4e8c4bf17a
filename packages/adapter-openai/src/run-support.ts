import { type RunConfig, type Thread, UnsupportedRunConfigError } from "@skein/thread-core";
import { requireServedTarget, servedTarget, unhonouredSettings } from "@skein/thread-core/driver";
import { CONVERSATION_TYPE } from "./conversation-state.js";
import { SOURCE } from "./errors.js";
import { RESPONSES_TYPE } from "./responses-state.js";

const OPENAI_TYPES: ReadonlySet<string> = new Set([CONVERSATION_TYPE, RESPONSES_TYPE]);

/**
 * The run settings openaiRunner turns into a request on every thread it serves (see the README's table):
 * on a local thread `maxInputTokens` cuts the view, on an `openai.*` thread it is the service's compaction
 * threshold. `embeddingOutputNeeded` is not here: a response is text, never embeddings.
 */
const HONOURED = [
  "model",
  "systemPrompt",
  "temperature",
  "thinkingLevel",
  "maxInputTokens",
  "maxOutputTokens",
  "outputSchema",
  "parameters",
  "imageCapabilityNeeded",
];

/** Which threads openaiRunner serves (thread-core's `servedTarget` reads it). */
const REACH = { runner: "openaiRunner", source: SOURCE, serviceTypes: OPENAI_TYPES, local: true };

/**
 * Whether openaiRunner serves `thread`: `openai.conversation` and `openai.responses` threads, and threads
 * whose log skein keeps (memory, fs, redis, postgres, custom types), through their view, found through any
 * wrapper and as a workflow's `main` sub-thread. Another service's thread (`foundry.*`, `a2a`, a type that
 * names its `historyService`) is not: its history lives with that service, which would never see the model's
 * output, and appending the output there would send it to another agent or fail after the model was paid.
 */
export function servesThread(thread: Thread): boolean {
  return servedTarget(thread, REACH) !== undefined;
}

/**
 * The thread the run acts on (`runTarget`), after refusing before any request a thread openaiRunner cannot
 * serve, or a run setting it cannot honour.
 */
export function assertRunnable(thread: Thread, config: RunConfig | undefined): Thread {
  const target = requireServedTarget(thread, REACH);
  const type = target.type;
  const refused = unhonouredSettings(config, HONOURED);
  if (refused.length === 0) return target;
  throw new UnsupportedRunConfigError(
    type,
    refused,
    refused.includes("embeddingOutputNeeded")
      ? "the Responses API answers with text and tool calls, never embeddings; call client.embeddings.create for those. Nothing was sent."
      : `openaiRunner does not know ${refused.length === 1 ? "this setting" : "these settings"}. Nothing was sent.`,
    { source: SOURCE },
  );
}
