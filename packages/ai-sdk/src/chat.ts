import { ConcurrencyError, type Message, type Thread, UnsupportedOperationError } from "@skein/thread-core";
import type { UIMessage } from "ai";
import { SOURCE } from "./errors.js";
import { fromUIMessages } from "./from-ui-messages.js";
import { planSave } from "./save-plan.js";
import { groupUIMessages, toUIMessages } from "./to-ui-messages.js";

/** How often a save that replaces part of the thread reads it again when another writer changed it meanwhile. */
const SAVE_RETRIES = 8;

export interface SaveChatOptions {
  /** Write only if the thread is still at this revision, else `ConcurrencyError` and nothing is written. */
  ifRevision?: number;
}

export interface SaveChatResult {
  /** The skein messages written, as stored; empty when the thread held the chat already. */
  appended: Message[];
  /** The id of the first UI message whose stored version (with everything after it) was replaced, if any. */
  replacedFrom?: string;
  /** The thread's revision after the save. */
  revision: number | undefined;
}

/**
 * The chat a thread holds, as AI SDK UI messages (`toUIMessages` of its messages).
 * @example const messages = await loadChat(await store.get(chatId))
 */
export async function loadChat(thread: Thread): Promise<UIMessage[]> {
  return toUIMessages(await thread.messages());
}

/**
 * Saves a chat's UI messages in a thread: appends what is new and, when a message the thread holds comes with
 * other parts (a continuation, a tool approval, a client-side tool result) or another message stands where the
 * thread has one (a regenerated answer), replaces the thread's suffix from there in one atomic change. The
 * replaced messages stay in `history()`. Saving what the thread holds already writes nothing.
 * @example await saveChat(thread, messages)
 */
export async function saveChat(
  thread: Thread,
  uiMessages: readonly UIMessage[],
  options: SaveChatOptions = {},
): Promise<SaveChatResult> {
  for (let attempt = 0; ; attempt++) {
    const stored = groupUIMessages(await thread.messages());
    // The revision the plan was made at: a replacement is refused if the thread moved on since.
    const seen = thread.revision;
    const plan = planSave(thread.id, stored, uiMessages);
    if (plan.kind === "none") return { appended: [], revision: thread.revision };
    const messages = fromUIMessages(plan.messages);
    if (plan.kind === "append") {
      const appended = await thread.append(messages, { ifRevision: options.ifRevision });
      return { appended, revision: thread.revision };
    }
    if (!thread.capabilities.rollback) {
      throw new UnsupportedOperationError(
        thread.type,
        "rollback",
        `saveChat replaces the chat from message ${JSON.stringify(plan.from)} with a rollback; save only new messages to this thread`,
        { source: SOURCE },
      );
    }
    try {
      const appended = (await thread.rollback(plan.target, {
        append: messages,
        ifRevision: options.ifRevision ?? seen,
      })) as Message[];
      return { appended, replacedFrom: plan.from, revision: thread.revision };
    } catch (error) {
      const retry = options.ifRevision === undefined && seen !== undefined && attempt < SAVE_RETRIES;
      if (!retry || !ConcurrencyError.isInstance(error)) throw error;
    }
  }
}
