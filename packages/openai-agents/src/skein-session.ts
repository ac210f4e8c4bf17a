import { createHash, randomBytes } from "node:crypto";
import type {
  AgentInputItem,
  Session,
  SessionHistoryRewriteArgs,
  SessionHistoryRewriteAwareSession,
  SessionHistoryTransaction,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from "@openai/agents-core";
import {
  ConcurrencyError,
  type Message,
  PointNotFoundError,
  type Thread,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { canonicalJson } from "@skein/thread-core/driver";
import { applyMutations, canonicalItem } from "./history-rules.js";
import { itemToMessage, messageToItems } from "./item-messages.js";
import { SessionHistoryError, SOURCE } from "./session-errors.js";
import { readItems, readMutations, readTransactionArgs } from "./session-input.js";

/** How often a change is tried again when another writer moved the thread between its read and its write. */
const RETRIES = 50;
/** Messages read per page when the session walks back from the end. */
const PAGE = 64;
/**
 * Operation ids this package gives the thread: `openai-agents:<generation>:<digest of the SDK's id>:<digest
 * of the transaction>`, and `openai-agents:<generation>:clear` for a clear, which starts a new generation.
 * The generation is the one of the thread's newest such id, so an SDK operation id is remembered until the
 * session is cleared (as the SDK's own session forgets them) or the thread keeps no more of it.
 */
const OPERATION_PREFIX = "openai-agents:";
const CLEAR = "clear";
const FIRST_GENERATION = "0";

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

  /** One atomic append of every item; a value it could not give back equal is a `SessionItemError`, nothing written. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const checked = readItems(items);
    if (checked.length === 0) return;
    await this.thread.append(checked.map(itemToMessage));
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

  /**
   * Empties the session by a rollback to its start; the thread's history keeps what it held. The session
   * forgets the operation ids of the transactions it applied: they guarded a history that is gone.
   */
  async clearSession(): Promise<void> {
    await this.#retrying(async () => {
      await this.thread.refresh();
      const revision = this.thread.revision as number;
      const [last] = await this.thread.messages({ last: 1 });
      const operations = this.#operations();
      const generation = currentGeneration(operations);
      const remembers = operations.some(
        (id) =>
          (id.startsWith(`${OPERATION_PREFIX}${generation}:`) && !id.endsWith(`:${CLEAR}`)) ||
          (generation === FIRST_GENERATION && isUngenerated(id)),
      );
      if (last === undefined && !remembers) return;
      const next = randomBytes(8).toString("hex");
      await this.thread.rollback("start", {
        ifRevision: revision,
        operationId: `${OPERATION_PREFIX}${next}:${CLEAR}`,
      });
    });
  }

  /**
   * One atomic change, applied once per `operationId` until the session is cleared: a retry with the same
   * transaction writes nothing, the same id with another transaction is a `SessionHistoryError`, and so is
   * a `replace_suffix` whose expected suffix is not the history's end (nothing written either way). The
   * arguments are read once. `runContext` (agents-core 0.20's second parameter) is accepted and ignored: the
   * session does not opt in to run contexts (no `acceptsRunContext`), so the runner never passes one, and a
   * caller that does changes nothing about where or how the items are stored.
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs, _runContext?: unknown): Promise<void> {
    const { operationId, transaction, encoded } = readTransactionArgs(args);
    const transactionDigest = digest(canonicalJson(encoded)).slice(0, 32);
    await this.#retrying(async () => {
      await this.thread.refresh();
      const revision = this.thread.revision as number;
      const operations = this.#operations();
      const generation = currentGeneration(operations);
      const known = `${OPERATION_PREFIX}${generation}:${digest(operationId)}:`;
      const id = `${known}${transactionDigest}`;
      // Ids written before generations (`openai-agents:<digest>:<digest>`) belong to the first generation.
      const ungenerated = `${OPERATION_PREFIX}${digest(operationId)}:`;
      const applied = operations.find(
        (operation) =>
          operation.startsWith(known) ||
          (generation === FIRST_GENERATION && operation.startsWith(ungenerated)),
      );
      if (applied === id || applied === `${ungenerated}${transactionDigest}`) return;
      if (applied !== undefined) {
        throw new SessionHistoryError(
          `Operation ${JSON.stringify(operationId)} was already applied with a different transaction; nothing was written.`,
        );
      }
      await this.#apply(transaction, id, revision);
    });
  }

  /**
   * Rewrites history in one atomic change by the SDK's own rules (`applySessionHistoryMutations`): each
   * `replace_function_call` puts its replacement where the first call with its callId was and drops every
   * later call with that callId. Any call in the history may match, so the whole history is read.
   */
  async applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void> {
    const mutations = readMutations(args);
    if (mutations.length === 0) return;
    await this.#retrying(async () => {
      const tail = await this.#tail(Number.POSITIVE_INFINITY);
      const items = applyMutations(tail.items, mutations);
      const length = Math.max(items.length, tail.items.length);
      let first = 0;
      while (first < length && canonicalItem(items[first]) === canonicalItem(tail.items[first])) first++;
      if (first === length) return;
      // Keep the messages before the first changed item; rewrite from there.
      let keep = 0;
      for (const count of tail.counts) {
        if (keep + count > first) break;
        keep += count;
      }
      await this.#replaceTail(tail, tail.items.length - keep, items.slice(keep));
    });
  }

  /** Applies a checked transaction at `revision`, the one its operation ids were read at. */
  async #apply(transaction: SessionHistoryTransaction, operationId: string, revision: number): Promise<void> {
    if (transaction.type === "append_items") {
      await this.thread.append(transaction.items.map(itemToMessage), { operationId, ifRevision: revision });
      return;
    }
    const expected = transaction.expectedSuffix.map((item) => canonicalItem(item));
    const tail = await this.#tail(expected.length);
    if (tail.revision !== revision) throw new MovedError();
    const actual = tail.items.slice(tail.items.length - expected.length).map((item) => canonicalItem(item));
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
    // A thread that keeps versions keeps the replaced items as an alternative of the first new message's place
    // (`thread.alternatives`, `switchTo`); a plain rollback would leave them in history() only.
    const edit = (this.thread as Partial<Pick<Thread, "edit">>).edit;
    const [version, ...rest] = append;
    if (version && typeof edit === "function") {
      const replaced = (tail.messages[first] as Message).id;
      await edit.call(this.thread, replaced, version, {
        ...options,
        ...(rest.length ? { append: rest } : {}),
      });
      return;
    }
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

/**
 * The generation of the thread's newest operation id of this package: a clear starts a new one. An id
 * written before generations existed (`openai-agents:<digest>:<digest>`) is of the first generation.
 */
function currentGeneration(operations: readonly string[]): string {
  const newest = operations.findLast((id) => id.startsWith(OPERATION_PREFIX));
  if (newest === undefined || isUngenerated(newest)) return FIRST_GENERATION;
  return newest.slice(OPERATION_PREFIX.length).split(":")[0] as string;
}

/** An operation id of this package from before generations: two digests, no generation, not a clear. */
function isUngenerated(id: string): boolean {
  const parts = id.startsWith(OPERATION_PREFIX) ? id.slice(OPERATION_PREFIX.length).split(":") : [];
  return parts.length === 2 && parts[1] !== CLEAR;
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
