// The runner contract: what drives a model on a thread, what it runs with, and how a thread says which service
// keeps its history. Only types: the helpers runners share (`runTarget`, `servedTarget`, …) live in ../runner.ts,
// which re-exports these.
import type { JsonValue } from "./json-value.js";
import type { Message } from "./message.js";
import type { BeginMessageOptions, StreamingReply } from "./streaming.js";
import type { Thread } from "./thread.js";

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

/** Options of `runner.run`: the abort signal, the run's configuration and messages for this run only. */
export interface RunOptions {
  /** Aborts the model call; the runner stops and appends nothing more. */
  signal?: AbortSignal;
  config?: RunConfig;
  /**
   * Messages for this run only (context providers', thread-service's attachments), already shown in the
   * thread's `view()` just before the new input. A runner that sends the view sends them; one that does not
   * (a remote conversation, an A2A agent) refuses the run before any request (`refuseTransient`), never
   * drops them.
   */
  transient?: readonly Message[];
  /**
   * Streams a message into the thread while the model makes it, given by callers that want replies as they
   * arrive (thread-service). A runner that streams calls it instead of appending its answer whole, writes the
   * deltas, ends the reply (`end`, or `fail` on an error) and returns the ended message among those it
   * appended. Absent (or ignored by a runner that does not stream): the answer is appended whole, as before.
   */
  beginMessage?: (options: Pick<BeginMessageOptions, "role" | "id" | "author">) => Promise<StreamingReply>;
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
 * A thread whose history a remote service keeps: it names that service, and only a runner of that service
 * serves it; every other runner refuses it before any request. skein's own remote types (OpenAI, Foundry, A2A)
 * declare it on their threads just as a third-party type must: core keeps no list of adapter type ids.
 */
export interface RemoteHistoryThread extends Thread {
  readonly historyService: string;
}

/**
 * A thread that stands for another and says which: thread-service's run guard and lease fence, a context
 * provider's view. A wrapper that hides its thread hides its type's behaviour from runners too.
 */
export interface ThreadWrapper extends Thread {
  readonly inner: Thread;
}
