import {
  type RunConfig,
  runTargetType,
  SERVICE_THREAD_TYPES,
  type Thread,
  UnsupportedOperationError,
  UnsupportedRunConfigError,
  unhonouredSettings,
} from "@skein/thread-core";
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

/**
 * Whether openaiRunner serves `thread`: `openai.conversation` and `openai.responses` threads, and threads
 * whose log skein keeps (memory, fs, redis, postgres, custom types), through their view. Another service's
 * thread (`foundry.*`, `a2a`) is not: its history lives with that service, which would never see the model's
 * output, and appending the output there would send it to another agent or fail after the model was paid.
 */
export function servesThread(thread: Thread): boolean {
  const type = runTargetType(thread);
  return type !== undefined && (OPENAI_TYPES.has(type) || !SERVICE_THREAD_TYPES.has(type));
}

/** Throws before any request when openaiRunner cannot serve the thread, or cannot honour a run setting. */
export function assertRunnable(thread: Thread, config: RunConfig | undefined): void {
  const type = runTargetType(thread);
  if (!servesThread(thread)) {
    throw new UnsupportedOperationError(
      type ?? thread.type,
      "runs by openaiRunner",
      type === undefined
        ? "the workflow has no main sub-thread this process can open. Nothing was sent."
        : `its history lives with another service; run it with that service's runner, or copy its messages into a local thread. Nothing was sent.`,
      { source: SOURCE },
    );
  }
  const refused = unhonouredSettings(config, HONOURED);
  if (refused.length === 0) return;
  throw new UnsupportedRunConfigError(
    type ?? thread.type,
    refused,
    refused.includes("embeddingOutputNeeded")
      ? "the Responses API answers with text and tool calls, never embeddings; call client.embeddings.create for those. Nothing was sent."
      : `openaiRunner does not know ${refused.length === 1 ? "this setting" : "these settings"}. Nothing was sent.`,
    { source: SOURCE },
  );
}
