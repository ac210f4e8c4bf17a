import { createHash, randomUUID } from "node:crypto";
import { ClientFactory } from "@a2a-js/sdk/client";
import {
  ConcurrencyError,
  ConflictError,
  type JsonValue,
  type Message,
  type RunOptions,
  type Thread,
  type ThreadRunner,
} from "@skein/thread-core";
import { canonicalJson } from "@skein/thread-core/driver";
import { a2aThreadOf, assertRunnable, servesThread } from "./a2a-run-support.js";
import type { A2aThread } from "./a2a-thread.js";
import { AgentClients } from "./agent-clients.js";
import { type ConversationLink, openTurnStream } from "./agent-turn.js";
import { A2aInvalidAgentUrlError, A2aTaskFailedError } from "./errors.js";
import { ReplyAssembler } from "./reply-assembler.js";

/** Options of `a2aRunner`: the agent's URL and the A2A client factory. */
export interface A2aRunnerOptions {
  /** The agent to talk to: where its card is served (`<agentUrl>/.well-known/agent-card.json`), or the card's URL. */
  agentUrl: string;
  /** Makes the SDK client; pass yours for authentication or interceptors. @default new ClientFactory() */
  clientFactory?: ClientFactory;
}

/** What the runner remembers of its conversation with an agent, in the thread's `context.a2a[agentUrl]`. */
export interface A2aRunnerLink extends ConversationLink {
  /** The last user message sent, so a second run without a new message sends nothing. */
  sentMessageId?: string;
}

const SAVE_ATTEMPTS = 8;

/**
 * A runner that lets any thread (memory, fs, redis, …) talk to a remote A2A agent: it sends the thread's
 * new user message in the agent context it keeps for the thread, and appends the agent's reply (status
 * messages, artifacts, plain answers) as each part completes. The agent owns its model, so a run with any
 * `RunConfig` setting is refused before anything is sent, as is another service's thread.
 * @example const reply = await a2aRunner({ agentUrl: "https://agent.example" }).run(thread);
 */
export function a2aRunner(options: A2aRunnerOptions): ThreadRunner {
  const agentUrl = options.agentUrl;
  if (!URL.canParse(agentUrl) || !/^https?:$/.test(new URL(agentUrl).protocol)) {
    throw new A2aInvalidAgentUrlError(agentUrl);
  }
  const clients = new AgentClients(options.clientFactory ?? new ClientFactory());
  return {
    specificationVersion: "v1",
    supports: (thread: Thread) => servesThread(thread, agentUrl),
    run: async (thread: Thread, runOptions: RunOptions = {}) => {
      assertRunnable(thread, agentUrl, runOptions);
      const a2a = a2aThreadOf(thread);
      return a2a ? replyOf(a2a) : runOn(thread, clients, agentUrl, runOptions.signal);
    },
  };
}

/** An `a2a` thread ran the agent when its message was appended; the run returns that reply. */
async function replyOf(thread: A2aThread): Promise<Message[]> {
  const reply = await thread.lastReply();
  if (thread.taskId && thread.taskState === "failed") {
    throw new A2aTaskFailedError(thread.agentUrl, thread.taskId, thread.taskState, reply);
  }
  return reply;
}

async function runOn(
  thread: Thread,
  clients: AgentClients,
  agentUrl: string,
  signal: AbortSignal | undefined,
): Promise<Message[]> {
  const [last] = await thread.messages({ last: 1 });
  const link = linkOf(thread, agentUrl);
  if (last?.role !== "user" || link?.sentMessageId === last.id) return [];
  signal?.throwIfAborted();
  const start: ConversationLink = link ?? { contextId: randomUUID() };
  const opened = await clients.use(agentUrl, (client) =>
    openTurnStream(client, agentUrl, last, start, signal),
  );
  const assembler = new ReplyAssembler(agentUrl, last, opened.target, start);
  const appended: Message[] = [];
  let failure: unknown;
  try {
    for await (const response of opened.responses) {
      const { messages } = assembler.accept(response);
      signal?.throwIfAborted();
      appended.push(...(await appendReply(thread, messages)));
    }
    signal?.throwIfAborted();
    appended.push(...(await appendReply(thread, assembler.finish())));
  } catch (error) {
    failure = error;
  }
  // The agent took the message either way: remember where the conversation stands.
  const { unrecorded: _unrecorded, ...outcome } = assembler.outcome;
  await saveLink(thread, agentUrl, { ...outcome, sentMessageId: last.id });
  if (failure !== undefined) throw failure;
  if (outcome.taskId && outcome.taskState === "failed") {
    throw new A2aTaskFailedError(agentUrl, outcome.taskId, outcome.taskState, appended);
  }
  return appended;
}

function linkOf(thread: Thread, agentUrl: string): A2aRunnerLink | undefined {
  const links = thread.context.a2a;
  const link = isRecord(links) ? links[agentUrl] : undefined;
  return isRecord(link) && typeof link.contextId === "string"
    ? (link as unknown as A2aRunnerLink)
    : undefined;
}

/** Merges the link into the thread's context, retrying when another writer changed the thread first. */
async function saveLink(thread: Thread, agentUrl: string, link: A2aRunnerLink): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await thread.refresh();
    const links = isRecord(thread.context.a2a) ? thread.context.a2a : {};
    const context = { ...thread.context, a2a: { ...links, [agentUrl]: link } };
    try {
      await thread.update({ context }, thread.revision === undefined ? {} : { ifRevision: thread.revision });
      return;
    } catch (error) {
      if (attempt >= SAVE_ATTEMPTS || !ConcurrencyError.isInstance(error)) throw error;
    }
  }
}

/**
 * Appends the reply one message at a time. A message whose id is already in the thread with other
 * contents (the agent replaced an artifact since it was copied) is kept as a new version beside it.
 */
async function appendReply(thread: Thread, messages: Message[]): Promise<Message[]> {
  const stored: Message[] = [];
  for (const message of messages) {
    try {
      stored.push(...(await thread.append(message)));
    } catch (error) {
      if (!ConflictError.isInstance(error)) throw error;
      stored.push(...(await thread.append({ ...message, id: versionedId(message) })));
    }
  }
  return stored;
}

function versionedId(message: Message): string {
  const hash = createHash("sha256")
    .update(canonicalJson(message.contents as JsonValue))
    .digest("base64url")
    .slice(0, 12);
  return `${message.id.slice(0, 240)}~${hash}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
