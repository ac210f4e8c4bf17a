import type { StreamResponse } from "@a2a-js/sdk";
import type { Message } from "@skein/thread-core";
import type { TaskJson } from "./a2a-json.js";
import type { A2aTaskState } from "./task-state.js";

interface StreamEventBase {
  contextId: string;
  /**
   * The skein messages this event completed, in thread order: a status message, a finished artifact, a
   * plain-message answer. Empty for events that only move the task along.
   */
  messages: Message[];
  /** The SDK's event, for anything this summary leaves out. */
  raw: StreamResponse;
}

/** One event of a streaming turn (`thread.stream(…)`), summarized in skein terms. */
export type A2aStreamEvent =
  /** The task as it stands (the first event of a task turn). */
  | (StreamEventBase & { kind: "task"; taskId: string; state: A2aTaskState; task: TaskJson })
  /** The task's state changed; `final` when the agent stopped (terminal, or waiting for input). */
  | (StreamEventBase & { kind: "status"; taskId: string; state: A2aTaskState; final: boolean })
  /** A chunk of an artifact; its message is in `messages` once its last chunk arrived. */
  | (StreamEventBase & { kind: "artifact"; taskId: string; artifactId: string; lastChunk: boolean })
  /** The agent answered with a plain message instead of a task. */
  | (StreamEventBase & { kind: "message"; taskId?: string });
