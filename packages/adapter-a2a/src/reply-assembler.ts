import {
  type StreamResponse,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
  Message as WireMessage,
  Task as WireTask,
} from "@a2a-js/sdk";
import type { Message } from "@skein/thread-core";
import type { ArtifactJson, MessageJson, TaskJson, TaskStatusJson } from "./a2a-json.js";
import type { ConversationLink, TurnTarget } from "./agent-turn.js";
import { A2aAgentError } from "./errors.js";
import { artifactMessage, fromA2aMessage, taskMessages } from "./message-mapping.js";
import type { A2aStreamEvent } from "./stream-event.js";
import { type A2aTaskState, isInterruptedState, isTerminalState, taskStateName } from "./task-state.js";
import { plainOutcome, plainReply, type TurnOutcome } from "./turn-outcome.js";

/**
 * Follows the events of one streaming turn: summarizes each as an `A2aStreamEvent` carrying the skein
 * messages it completed (each once), joins artifact chunks, and keeps where the conversation stands.
 */
export class ReplyAssembler {
  readonly #emitted = new Set<string>();
  readonly #pending = new Map<string, { taskId: string; artifact: ArtifactJson }>();
  #outcome: TurnOutcome;
  #started = false;
  #statusMessage: Message | undefined;

  constructor(
    readonly agentUrl: string,
    readonly sent: Message,
    readonly target: TurnTarget,
    readonly link: ConversationLink,
  ) {
    this.#outcome = plainOutcome(link, target, target.contextId, []);
  }

  /** Whether any event arrived, so the agent took the message. */
  get started(): boolean {
    return this.#started;
  }

  get outcome(): TurnOutcome {
    return this.#outcome;
  }

  accept(response: StreamResponse): A2aStreamEvent {
    this.#started = true;
    const payload = response.payload;
    switch (payload?.$case) {
      case "task":
        return this.#task(WireTask.toJSON(payload.value) as TaskJson, response);
      case "statusUpdate":
        return this.#status(TaskStatusUpdateEvent.toJSON(payload.value) as StatusUpdateJson, response);
      case "artifactUpdate":
        return this.#artifact(TaskArtifactUpdateEvent.toJSON(payload.value) as ArtifactUpdateJson, response);
      case "message":
        return this.#message(WireMessage.toJSON(payload.value) as MessageJson, response);
      default:
        throw new A2aAgentError(this.agentUrl, "INVALID_AGENT_RESPONSE", "a stream event carried nothing.");
    }
  }

  /** Artifacts whose last chunk never came, as messages: the stream ended, so they are as whole as they get. */
  finish(): Message[] {
    const messages = this.#flush();
    if (this.#statusMessage) messages.push(this.#statusMessage);
    this.#statusMessage = undefined;
    return this.#fresh(messages);
  }

  #task(task: TaskJson, raw: StreamResponse): A2aStreamEvent {
    const taskId = task.id ?? "";
    const state = this.#track(task.contextId, taskId, task.status?.state);
    const { history, statusMessage, artifacts } = taskParts(task);
    const index = history.findIndex((message) => message.id === this.sent.id);
    const over = isTerminalState(state) || isInterruptedState(state);
    const messages =
      index >= 0 ? history.slice(index + 1) : over ? history.filter((m) => m.role !== "user") : [];
    // A snapshot's artifacts are whole only when the turn is over: an agent that does not stream answers so.
    if (over) messages.push(...artifacts);
    // A status message outside the history is the snapshot's own; a later status update supersedes it.
    this.#statusMessage = statusMessage;
    return {
      kind: "task",
      contextId: this.#outcome.contextId,
      taskId,
      state,
      task,
      messages: this.#fresh(messages),
      raw,
    };
  }

  #status(update: StatusUpdateJson, raw: StreamResponse): A2aStreamEvent {
    const taskId = update.taskId ?? "";
    const state = this.#track(update.contextId, taskId, update.status?.state);
    const final = isTerminalState(state) || isInterruptedState(state);
    const messages = final ? this.#flush() : [];
    this.#statusMessage = undefined;
    const said = update.status?.message;
    if (said) {
      const time = update.status?.timestamp ?? new Date().toISOString();
      messages.push(
        fromA2aMessage(said, { fallbackId: `${taskId}:status:${time}`, fallbackCreatedAt: time }),
      );
    }
    return {
      kind: "status",
      contextId: this.#outcome.contextId,
      taskId,
      state,
      final,
      messages: this.#fresh(messages),
      raw,
    };
  }

  #artifact(update: ArtifactUpdateJson, raw: StreamResponse): A2aStreamEvent {
    const taskId = update.taskId ?? "";
    this.#track(update.contextId, taskId, undefined);
    const artifactId = update.artifact?.artifactId ?? "";
    const before = this.#pending.get(artifactId);
    const chunk = update.artifact ?? {};
    const artifact =
      update.append && before
        ? { ...before.artifact, ...chunk, parts: [...(before.artifact.parts ?? []), ...(chunk.parts ?? [])] }
        : chunk;
    this.#pending.set(artifactId, { taskId, artifact });
    const lastChunk = update.lastChunk === true;
    const messages = lastChunk ? this.#flush(artifactId) : [];
    return {
      kind: "artifact",
      contextId: this.#outcome.contextId,
      taskId,
      artifactId,
      lastChunk,
      messages: this.#fresh(messages),
      raw,
    };
  }

  #message(message: MessageJson, raw: StreamResponse): A2aStreamEvent {
    const answer = plainReply(message, this.sent);
    const unrecorded = this.target.taskId ? [answer.reply] : [this.sent, answer.reply];
    this.#outcome = plainOutcome(this.link, this.target, answer.contextId, unrecorded);
    const taskId = message.taskId ? { taskId: message.taskId } : {};
    return {
      kind: "message",
      contextId: this.#outcome.contextId,
      ...taskId,
      messages: this.#fresh([answer.reply]),
      raw,
    };
  }

  #track(contextId: string | undefined, taskId: string, state: string | undefined): A2aTaskState {
    const known = this.#outcome.taskId === taskId ? this.#outcome.taskState : undefined;
    const taskState = state === undefined ? (known ?? "unspecified") : taskStateName(state);
    this.#outcome = {
      contextId: contextId || this.#outcome.contextId,
      ...(taskId ? { taskId } : {}),
      taskState,
      unrecorded: this.#outcome.unrecorded,
    };
    return taskState;
  }

  /** Pending artifacts (one, or all) as messages, in the order they started. */
  #flush(artifactId?: string): Message[] {
    const messages: Message[] = [];
    for (const [id, { taskId, artifact }] of this.#pending) {
      if (artifactId !== undefined && id !== artifactId) continue;
      messages.push(artifactMessage(taskId, artifact, new Date().toISOString()));
      this.#pending.delete(id);
    }
    return messages;
  }

  #fresh(messages: Message[]): Message[] {
    const fresh = messages.filter((message) => !this.#emitted.has(message.id));
    for (const message of fresh) this.#emitted.add(message.id);
    return fresh;
  }
}

/** A task's messages split as `taskMessages` lays them out: history, status message (if apart), artifacts. */
function taskParts(task: TaskJson) {
  const all = taskMessages(task);
  const artifactCount = task.artifacts?.length ?? 0;
  const said = task.status?.message;
  const apart =
    said !== undefined && !(task.history ?? []).some((entry) => entry.messageId === said.messageId);
  const historyEnd = all.length - artifactCount - (apart ? 1 : 0);
  return {
    history: all.slice(0, historyEnd),
    statusMessage: apart ? all[historyEnd] : undefined,
    artifacts: all.slice(all.length - artifactCount),
  };
}

interface StatusUpdateJson {
  taskId?: string;
  contextId?: string;
  status?: TaskStatusJson;
}

interface ArtifactUpdateJson {
  taskId?: string;
  contextId?: string;
  artifact?: ArtifactJson;
  append?: boolean;
  lastChunk?: boolean;
}
