import { type SendMessageResult, type StreamResponse, Message as WireMessage } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { A2AError } from "@a2a-js/sdk/errors";
import type { Message } from "@skein/thread-core";
import { agentError } from "./agent-error.js";
import { toA2aMessage } from "./message-mapping.js";
import { type A2aTaskState, isTerminalState } from "./task-state.js";

/** Where a conversation with an agent stands: its context, and its current task while there is one. */
export interface ConversationLink {
  contextId: string;
  taskId?: string;
  taskState?: A2aTaskState;
}

/** Where one message goes: the context, and the task it continues (none: the agent starts a new task). */
export interface TurnTarget {
  contextId: string;
  taskId?: string;
}

/** The current task is continued while it is not terminal; after that the context gets a new task. */
export function planTarget(link: ConversationLink): TurnTarget {
  return link.taskId && !isTerminalState(link.taskState)
    ? { contextId: link.contextId, taskId: link.taskId }
    : { contextId: link.contextId };
}

/** Sends one user message and waits for the task to stop (terminal or waiting for input). */
export async function sendTurn(
  client: Client,
  agentUrl: string,
  message: Message,
  link: ConversationLink,
  signal?: AbortSignal,
): Promise<{ target: TurnTarget; result: SendMessageResult }> {
  const send = (target: TurnTarget) => client.sendMessage(request(message, target), { signal });
  let target = planTarget(link);
  try {
    return { target, result: await send(target) };
  } catch (error) {
    if (!refusedContinuation(error, target)) {
      throw agentError(error, { agentUrl, operation: "SendMessage", taskId: target.taskId });
    }
  }
  target = { contextId: target.contextId };
  try {
    return { target, result: await send(target) };
  } catch (error) {
    throw agentError(error, { agentUrl, operation: "SendMessage" });
  }
}

/**
 * Sends one user message with SendStreamingMessage (the SDK falls back to a plain send for agents that do
 * not stream) and resolves once the first event arrived, with the rest still to read.
 */
export async function openTurnStream(
  client: Client,
  agentUrl: string,
  message: Message,
  link: ConversationLink,
  signal?: AbortSignal,
): Promise<{ target: TurnTarget; responses: AsyncGenerator<StreamResponse, void> }> {
  const open = (target: TurnTarget) =>
    client.sendMessageStream(request(message, target), { signal })[Symbol.asyncIterator]();
  let target = planTarget(link);
  let iterator = open(target);
  let first: IteratorResult<StreamResponse, void>;
  try {
    first = await iterator.next();
  } catch (error) {
    if (!refusedContinuation(error, target)) {
      throw agentError(error, { agentUrl, operation: "SendStreamingMessage", taskId: target.taskId });
    }
    target = { contextId: target.contextId };
    iterator = open(target);
    first = await nextOrThrow(iterator, agentUrl);
  }
  return { target, responses: rest(first, iterator, agentUrl) };
}

/**
 * The agent refused to continue the task: it reached a terminal state since this thread last looked
 * (another client finished it). The message was not taken, so it is sent again as a new task.
 */
function refusedContinuation(error: unknown, target: TurnTarget): boolean {
  return target.taskId !== undefined && error instanceof A2AError && error.reason === "UNSUPPORTED_OPERATION";
}

function request(message: Message, target: TurnTarget) {
  return {
    tenant: "",
    message: WireMessage.fromJSON(toA2aMessage(message, target)),
    configuration: undefined,
    metadata: undefined,
  };
}

async function nextOrThrow(
  iterator: AsyncIterator<StreamResponse, void>,
  agentUrl: string,
): Promise<IteratorResult<StreamResponse, void>> {
  try {
    return await iterator.next();
  } catch (error) {
    throw agentError(error, { agentUrl, operation: "SendStreamingMessage" });
  }
}

async function* rest(
  first: IteratorResult<StreamResponse, void>,
  iterator: AsyncIterator<StreamResponse, void>,
  agentUrl: string,
): AsyncGenerator<StreamResponse, void> {
  let current = first;
  try {
    while (!current.done) {
      yield current.value;
      current = await nextOrThrow(iterator, agentUrl);
    }
  } finally {
    // Stopping early (a `break` in the caller) closes the SDK's stream and its HTTP response.
    if (!current.done) await iterator.return?.();
  }
}
