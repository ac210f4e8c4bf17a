import { createHash } from "node:crypto";
import type {
  AgentInputItem,
  Session,
  SessionHistoryMutation,
  SessionHistoryRewriteArgs,
  SessionHistoryRewriteAwareSession,
  SessionHistoryTransaction,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from "@openai/agents-core";
import {
  ConcurrencyError,
  canonicalJson,
  type Message,
  newSortableId,
  PointNotFoundError,
  type Thread,
  ThreadExistsError,
  ThreadNotFoundError,
  type ThreadStore,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { itemToMessage, messageToItems } from "./item-messages.js";
import { SessionHistoryError, SOURCE } from "./session-errors.js";
import { encodeValue } from "./stored-values.js";

/** Options of `createSkeinSession`: a thread, or a store and the session's id. */
export type SkeinSessionOptions =
  | {
      /** Where the session's thread lives: any store, by URL (`openStore`) or client. */
      store: ThreadStore;
      /** The session's id, which is its thread's id: the same id resumes it in any process. @default a new id */
      sessionId?: string;
      thread?: undefined;
    }
  | {
      /** A thread to use as the session (a local thread of any store); its id is the session's. */
      thread: Thread;
      store?: ThreadStore;
      sessionId?: undefined;
    };

/** How often a change is tried again when another writer moved the thread between its read and its write. */
const RETRIES = 50;
/** Messages read per page when the session walks back from the end. */
const PAGE = 64;
/** Operation ids this package gives the thread: a digest of the SDK's id, then of the transaction. */
const OPERATION_PREFIX = "openai-agents:";

/**
 * Opens (or creates) the session's thread: `sessionId` names it, so another process resumes the session
 * with the same id. A given `thread` is used as it is.
 */
export async function createSkeinSession(options: SkeinSessionOptions): Promise<SkeinSession> {
  if (options.thread) return new SkeinSession(options.thread);
  const { store } = options;
  const id = options.sessionId ?? newSortableId();
  try {
    return new SkeinSession(await store.get(id));
  } catch (error) {
    if (!ThreadNotFoundError.isInstance(error)) throw error;
  }
  try {
    return new SkeinSession(await store.create({ id }));
  } catch (error) {
    // Another process created it first: both use that one.
    if (!ThreadExistsError.isInstance(error)) throw error;
    return new SkeinSession(await store.get(id));
  }
}

/**
 * An OpenAI Agents SDK session kept in a skein thread: every item is one skein message, every change one
 * atomic commit. `popItem`, `clearSession`, `replace_suffix` and history rewrites are rollbacks, so nothing
 * is destroyed: `thread.history()` shows each, and `thread.at()` reads what was there before.
 */
export class SkeinSession
  implements Session, SessionHistoryTransactionAwareSession, SessionHistoryRewriteAwareSession
{
  constructor(readonly thread: Thread) {
    const { capabilities } = thread;
    if (!capabilities.rollback || !capabilities.revisions || thread.type === "workflow") {
      throw new UnsupportedOperationError(
        thread.type,
        "sessions",
        thread.type === "workflow"
          ? "use one of its sub-threads (workflow.thread(key)) as the session"
          : "a session needs a local thread (memory, fs, redis, postgres or a local type of yours)",
        { source: SOURCE },
      );
    }
  }

  async getSessionId(): Promise<string> {
    return this.thread.id;
  }

  /** The whole history, or its latest `limit` items, in chronological order. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit === undefined) return (await this.thread.messages()).flatMap(messageToItems);
    if (limit <= 0) return [];
    return this.#retrying(async () => (await this.#tail(limit)).items.slice(-limit));
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.thread.append(items.map(itemToMessage));
  }

  /** Removes the latest item by a rollback (the thread's history keeps it) and returns it. */
  async popItem(): Promise<AgentInputItem | undefined> {
    return this.#retrying(async () => {
      const tail = await this.#tail(1);
      const item = tail.items.at(-1);
      if (item === undefined) return undefined;
      await this.#replaceTail(tail, 1, []);
      return item;
    });
  }

  /** Empties the session by a rollback to its start; the thread's history keeps what it held. */
  async clearSession(): Promise<void> {
    const [last] = await this.thread.messages({ last: 1 });
    if (last !== undefined) await this.thread.rollback("start");
  }

  /**
   * One atomic change, applied once per `operationId`: a retry with the same transaction writes nothing,
   * the same id with another transaction is a `SessionHistoryError`, and so is a `replace_suffix` whose
   * expected suffix is not the history's end (nothing written either way).
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    const { operationId, transaction } = args ?? ({} as SessionHistoryTransactionArgs);
    if (typeof operationId !== "string" || operationId.trim() === "") {
      throw new SessionHistoryError("A history transaction needs a non-empty operationId.");
    }
    const encoded = encodeValue(transaction);
    const known = `${OPERATION_PREFIX}${digest(operationId)}:`;
    const id = `${known}${digest(canonicalJson(encoded)).slice(0, 32)}`;
    await this.#retrying(async () => {
      await this.thread.refresh();
      const applied = this.#operations().find((operation) => operation.startsWith(known));
      if (applied === id) return;
      if (applied !== undefined) {
        throw new SessionHistoryError(
          `Operation ${JSON.stringify(operationId)} was already applied with a different transaction.`,
        );
      }
      await this.#apply(transaction, id);
    });
  }

  /** Rewrites history in one atomic change: each `replace_function_call` replaces the newest call with its callId. */
  async applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void> {
    const mutations = args?.mutations ?? [];
    if (mutations.length === 0) return;
    for (const mutation of mutations) encodeValue(mutation);
    await this.#retrying(async () => {
      const callIds = new Set(mutations.map((mutation) => mutation.callId));
      // Walk back until every call is found (or the start): the rewrite starts at the earliest one.
      let tail = await this.#tail(1);
      const found = () =>
        new Set(
          tail.items.flatMap((item) =>
            item.type === "function_call" && callIds.has(item.callId) ? [item.callId] : [],
          ),
        );
      while (found().size < callIds.size && !tail.atStart) tail = await this.#tail(tail.items.length + PAGE);
      const items = applyMutations(tail.items, mutations);
      const first = items.findIndex((item, index) => canonical(item) !== canonical(tail.items[index]));
      if (first === -1) return;
      // Keep the messages before the first changed item; rewrite from there.
      let keep = 0;
      for (const count of tail.counts) {
        if (keep + count > first) break;
        keep += count;
      }
      await this.#replaceTail(tail, tail.items.length - keep, items.slice(keep));
    });
  }

  async #apply(transaction: SessionHistoryTransaction, operationId: string): Promise<void> {
    if (transaction.type === "append_items") {
      await this.thread.append(transaction.items.map(itemToMessage), { operationId });
      return;
    }
    if (transaction.type !== "replace_suffix") {
      throw new SessionHistoryError(
        `Unknown history transaction type ${JSON.stringify((transaction as { type?: unknown }).type)}.`,
      );
    }
    const expected = transaction.expectedSuffix.map((item) => canonical(item));
    const tail = await this.#tail(expected.length);
    const actual = tail.items.slice(tail.items.length - expected.length).map((item) => canonical(item));
    if (tail.items.length < expected.length || actual.some((item, index) => item !== expected[index])) {
      throw new SessionHistoryError(
        "The session history no longer ends with the transaction's expected suffix; nothing was changed.",
      );
    }
    await this.#replaceTail(tail, expected.length, transaction.replacement, operationId);
  }

  /**
   * The last messages that hold at least `count` items (all of them when fewer), read backwards in pages
   * from one revision, with the items of each.
   */
  async #tail(count: number): Promise<Tail> {
    const messages: Message[] = [];
    const counts: number[] = [];
    const items: AgentInputItem[] = [];
    let revision: number | undefined;
    let before: string | undefined;
    const read = async (options: { last: number } | { before: string; limit: number }) => {
      const page = await this.thread.messages(options);
      revision ??= this.thread.revision as number;
      if (this.thread.revision !== revision) throw new MovedError();
      return page;
    };
    for (;;) {
      const page = await read(before === undefined ? { last: PAGE } : { before, limit: PAGE });
      let index = page.length - 1;
      for (; index >= 0 && items.length < count; index--) {
        const message = page[index] as Message;
        const mapped = messageToItems(message);
        messages.unshift(message);
        counts.unshift(mapped.length);
        items.unshift(...mapped);
      }
      const done = { messages, counts, items, revision: revision as number };
      // Stopped inside the page: the message before the tail is known.
      if (index >= 0) return { ...done, atStart: false, previous: (page[index] as Message).id };
      if (page.length < PAGE) return { ...done, atStart: true };
      before = (page[0] as Message).id;
      if (items.length >= count) {
        const [previous] = await read({ before, limit: 1 });
        return { ...done, atStart: previous === undefined, previous: previous?.id };
      }
    }
  }

  /**
   * Replaces the last `remove` items of `tail` with `replacement` in one change at the tail's revision: a
   * rollback to just before the messages that hold them, appending what those messages held besides
   * and the replacement. A pure append when nothing is removed.
   */
  async #replaceTail(
    tail: Tail,
    remove: number,
    replacement: AgentInputItem[],
    operationId?: string,
  ): Promise<void> {
    let messageCount = 0;
    let itemCount = 0;
    for (let index = tail.counts.length - 1; index >= 0 && itemCount < remove; index--) {
      itemCount += tail.counts[index] as number;
      messageCount++;
    }
    const kept = tail.items.slice(tail.items.length - itemCount, tail.items.length - remove);
    const append = [...kept, ...replacement].map(itemToMessage);
    const options = { ifRevision: tail.revision, ...(operationId === undefined ? {} : { operationId }) };
    if (messageCount === 0) {
      await this.thread.append(append, options);
      return;
    }
    const first = tail.messages.length - messageCount;
    const target = first > 0 ? (tail.messages[first - 1] as Message).id : (tail.previous ?? "start");
    await this.thread.rollback(target, { ...options, append });
  }

  /** The operation ids the thread keeps, where its type shows them (local threads' records). */
  #operations(): string[] {
    const record = (this.thread as { record?: { operations?: Array<{ id: string }> } }).record;
    return (record?.operations ?? []).map((operation) => operation.id);
  }

  /** Runs a read-then-write step again when another writer changed the thread in between. */
  async #retrying<Result>(step: () => Promise<Result>): Promise<Result> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await step();
      } catch (error) {
        const moved =
          error instanceof MovedError ||
          ConcurrencyError.isInstance(error) ||
          PointNotFoundError.isInstance(error);
        if (!moved || attempt >= RETRIES) throw error;
      }
    }
  }
}

interface Tail {
  messages: Message[];
  /** Items per message. */
  counts: number[];
  items: AgentInputItem[];
  revision: number;
  /** Whether the tail starts at the thread's first message. */
  atStart: boolean;
  /** The id of the message before the tail, when there is one. */
  previous?: string;
}

/** The thread changed while the session read it page by page: read again. */
class MovedError extends Error {}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function canonical(item: unknown): string {
  return canonicalJson(encodeValue(item));
}

/** The SDK's own rewrite rules, on items: see `applySessionHistoryMutations` in `@openai/agents-core`. */
function applyMutations(items: AgentInputItem[], mutations: SessionHistoryMutation[]): AgentInputItem[] {
  let next = items;
  for (const mutation of mutations) {
    if (mutation.type !== "replace_function_call") continue;
    let replaced = false;
    next = next.flatMap((item) => {
      if (item.type !== "function_call" || item.callId !== mutation.callId) return [item];
      if (replaced) return [];
      replaced = true;
      return [structuredClone(mutation.replacement)];
    });
  }
  return next;
}
