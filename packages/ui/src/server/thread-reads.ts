import {
  type Checkpoint,
  estimateTokens,
  LogThread,
  type Message,
  SkeinError,
  type Thread,
  type ThreadStore,
  type WorkflowState,
  WorkflowThread,
} from "@skein/thread-core";
import type {
  ContextView,
  ListOrder,
  MessagePage,
  SubThreadInfo,
  ThreadInfo,
  ThreadListPage,
  ThreadRow,
  WorkflowInfo,
} from "../api-types.js";
import { UiRequestError } from "../errors.js";
import { isOpaque, type Readable, scopedStore } from "./thread-address.js";

/** The most messages one page request returns, whatever it asks for. */
export const MAX_PAGE = 200;
/** The largest budget the context view takes: its answer lists every kept id, so it stays bounded. */
export const MAX_VIEW_TOKENS = 1_000_000;
/** The most threads one list request returns. */
export const MAX_LIST = 100;

/** What the threads list asks the store for: one owner's threads, in an order, a page at a time. */
export interface ThreadListQuery {
  scope?: string;
  prefix?: string;
  owner?: string;
  order?: ListOrder;
  direction?: "asc" | "desc";
  cursor?: string;
  limit: number;
}

/**
 * One keyset page of the store's threads, as `store.list` gives them: owner, title, times and, for local
 * threads, the message count, all without reading a thread (a page costs the store what its size does).
 */
export async function listThreads(store: ThreadStore, query: ThreadListQuery): Promise<ThreadListPage> {
  const { scope, limit, ...options } = query;
  const page = await scopedStore(store, scope).list({
    ...options,
    limit: Math.min(Math.max(1, limit), MAX_LIST),
  });
  const items = page.items.map(
    ({ messageCount, ...item }): ThreadRow => ({ ...item, messageCount: messageCount ?? null }),
  );
  return { items, ...(page.cursor ? { cursor: page.cursor } : {}) };
}

/** The thread's length where it is known without reading every message: local threads keep it in their record. */
export function knownLength(thread: Thread): number | null {
  return LogThread.isInstance(thread) ? thread.length : null;
}

/** What the live poll compares: any change to the thread changes it. */
export async function signatureOf(thread: Thread): Promise<string> {
  if (WorkflowThread.isInstance(thread)) {
    const parts = [`w${thread.revision}`];
    for (const key of thread.keys()) {
      const sub = subThread(thread, key);
      if (sub) parts.push(`${key}:${await signatureOf(sub)}`);
    }
    return parts.join("|");
  }
  if (LogThread.isInstance(thread)) return `${thread.revision}:${thread.length}`;
  // A remote thread has no revision here: its newest message is the cheapest change to look at.
  const [last] = await thread.messages({ last: 1 });
  return `remote:${last?.id ?? ""}`;
}

export async function threadInfo(thread: Thread): Promise<ThreadInfo> {
  const checkpoints: Checkpoint[] = [];
  if (thread.capabilities.timeTravel) {
    for (const event of await thread.history())
      if (event.kind === "checkpoint") checkpoints.push(event.checkpoint);
  }
  return {
    id: thread.id,
    type: thread.type,
    capabilities: { ...thread.capabilities },
    revision: thread.revision ?? null,
    length: knownLength(thread),
    ...catalogueOf(thread),
    titleEditable: LogThread.isInstance(thread),
    metadata: { ...thread.metadata },
    signature: await signatureOf(thread),
    ...(WorkflowThread.isInstance(thread) ? { workflow: workflowInfo(thread) } : {}),
    checkpoints,
  };
}

/** A thread's owner and title: a local thread's record holds them, another type's state may carry them. */
function catalogueOf(thread: Thread): { owner?: string; title?: string } {
  const source = LogThread.isInstance(thread)
    ? { owner: thread.owner, title: thread.title }
    : (thread.toJSON() as { owner?: unknown; title?: unknown });
  return {
    ...(typeof source.owner === "string" ? { owner: source.owner } : {}),
    ...(typeof source.title === "string" ? { title: source.title } : {}),
  };
}

function subThread(workflow: WorkflowThread, key: string): Thread | undefined {
  try {
    return workflow.thread(key);
  } catch {
    return undefined;
  }
}

/** A workflow's execution state and, for each sub-thread, what this process can read of it. */
function workflowInfo(workflow: WorkflowThread): WorkflowInfo {
  const states = (workflow.toJSON() as WorkflowState).threads;
  const threads = workflow.keys().map((key): SubThreadInfo => {
    const state = states[key] as unknown;
    const raw = (isOpaque(state) ? state.raw : state) as { $type?: unknown; id?: unknown };
    const type = String(raw.$type);
    const id = typeof raw.id === "string" ? raw.id : undefined;
    try {
      const sub = workflow.thread(key);
      return {
        key,
        type,
        ...(id ? { id } : {}),
        readable: true,
        length: knownLength(sub),
        capabilities: { ...sub.capabilities },
      };
    } catch (error) {
      const reason = SkeinError.isInstance(error) ? error.message : String(error);
      return { key, type, ...(id ? { id } : {}), readable: false, reason, length: null };
    }
  });
  return { execution: structuredClone(workflow.execution), threads };
}

/** A page's messages and where they are, before the route adds what it knows of the thread. */
export type MessageSlice = Pick<MessagePage, "from" | "length" | "messages" | "earlier">;

/**
 * Messages from position `from`, at most `limit`: `messages({ last, limit })` reads only that range of a
 * local thread, so a page of a 100,000-message thread costs what a page of a short one does.
 */
export async function messagePage(
  source: Readable,
  length: number | null,
  from: number | undefined,
  limit: number,
  before?: string,
): Promise<MessageSlice> {
  const count = Math.min(Math.max(1, limit), MAX_PAGE);
  if (length === null) {
    // Remote threads have no length here: the adapter reads the last page, or the page before a message,
    // and one more message says whether there are earlier ones.
    const read = await source.messages(
      before === undefined ? { last: count + 1 } : { before, limit: count + 1 },
    );
    const messages = read.length > count ? read.slice(1) : read;
    const first = messages[0];
    return {
      from: 0,
      length: messages.length,
      messages,
      ...(read.length > count && first ? { earlier: first.id } : {}),
    };
  }
  const start = clampStart(from, length, count);
  const take = Math.min(count, length - start);
  if (start + take < length) {
    return { from: start, length, messages: await source.messages({ last: length - start, limit: take }) };
  }
  // An empty log's page is its streaming messages; a page asked past the end of a log holds nothing.
  if (take === 0 && length > 0) return { from: start, length, messages: [] };
  return { from: start, length, messages: await lastPage(source, take) };
}

/** The most messages still streaming that a page shows after the log's end (each is one `beginMessage`). */
const MAX_STREAMING_SHOWN = 8;

/**
 * The last `take` messages of the log, then the messages still streaming (which come after its end): room in
 * the limit lets `messages()` add them, at no extra read when there are none. `last` counts them too, so
 * as many of the page's first messages are read again when there are some.
 */
async function lastPage(source: Readable, take: number): Promise<Message[]> {
  if (take === 0) return source.messages({ limit: MAX_STREAMING_SHOWN }); // an empty log: nothing is read
  const read = await source.messages({ last: take, limit: take + MAX_STREAMING_SHOWN });
  const streaming = read.filter((message) => message.status === "streaming");
  if (streaming.length === 0) return read;
  const pushedOut = await source.messages({ last: take, limit: streaming.length });
  return [...pushedOut, ...read];
}

/** No `from`: the last page. */
function clampStart(from: number | undefined, length: number, count: number): number {
  if (from === undefined) return Math.max(0, length - count);
  if (!Number.isSafeInteger(from) || from < 0)
    throw new UiRequestError(400, "from must be a position, 0 or more.");
  return Math.min(from, length);
}

/** What `view({ maxTokens, keepSystem })` keeps, as ids; the page greys every other message. */
export async function contextView(
  source: Readable,
  length: number | null,
  maxTokens: number,
  keepSystem: boolean,
): Promise<ContextView> {
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_VIEW_TOKENS)
    throw new UiRequestError(400, `maxTokens must be a whole number from 1 to ${MAX_VIEW_TOKENS}.`);
  const kept = await source.view({ maxTokens, keepSystem });
  return {
    length: length ?? kept.length,
    keptIds: kept.map((message) => message.id),
    tokens: kept.reduce((sum, message) => sum + estimateTokens(message), 0),
    maxTokens,
    keepSystem,
  };
}
