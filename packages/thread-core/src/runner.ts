import type { JsonValue } from "./json.js";
import type { Message } from "./message.js";
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
