import { ConcurrencyError, type Message, type Thread, UnsupportedOperationError } from "@skein/thread-core";
import { isServiceThread, runTarget } from "@skein/thread-core/driver";
import type { UIMessage } from "ai";
import { assertOptions, assertThread, assertUIMessages, readIfRevision } from "./chat-arguments.js";
import {
  markVersions,
  replaceAsVersion,
  SKEIN_METADATA,
  type SwitchBranchOptions,
  switchTo,
} from "./chat-branches.js";
import { SOURCE } from "./errors.js";
import { fromUIMessages } from "./from-ui-messages.js";
import { planSave, type StoredChat } from "./save-plan.js";
import { groupUIMessages } from "./to-ui-messages.js";

/** How often a save that replaces part of the thread reads it again when another writer changed it meanwhile. */
const SAVE_RETRIES = 8;

/** Options of `saveChat`: the thread's revision to check, so a concurrent save is refused; its owner and title. */
export interface SaveChatOptions {
  /** Write only if the thread is still at this revision, else `ConcurrencyError` and nothing is written. */
  ifRevision?: number;
  /** The chat's owner (the signed-in user), set on the thread when it has another. */
  owner?: string;
  /** The chat's title, set on the thread when it has another (a sidebar shows it; `listChats`). */
  title?: string;
}

/** What `saveChat` wrote: the messages it appended, where it replaced the thread's tail (if it did) and the revision after. */
export interface SaveChatResult {
  /** The skein messages written, as stored; empty when the thread held the chat already. */
  appended: Message[];
  /** The id of the first UI message whose stored version (with everything after it) was replaced, if any. */
  replacedFrom?: string;
  /** The thread's revision after the save. */
  revision: number | undefined;
}

/**
 * The chat a thread holds, as AI SDK UI messages (`toUIMessages` of its messages). A reply still streaming is
 * left out (`useChat({ resume: true })` gets it from `resumeChat`); one that ended before it was complete has
 * `metadata.skein.status: "interrupted"`.
 * @example const messages = await loadChat(await store.get(chatId))
 */
export async function loadChat(thread: Thread): Promise<UIMessage[]> {
  assertThread("loadChat", thread);
  const messages = settled(await thread.messages());
  return markStatus(messages, await markVersions(thread, messages, groupUIMessages(messages)));
}

/**
 * Shows another version of a message (an edit or a regenerated answer): makes its branch the chat's current one
 * and returns the chat's UI messages on it, as `loadChat` does. `to` is a version's index (`metadata.skein.index`
 * of the message, from `loadChat`) or its id; the branch left stays a version.
 * @example setMessages(await switchBranch({ store, chatId, messageId: message.id, to: index - 1 }))
 */
export async function switchBranch(options: SwitchBranchOptions): Promise<UIMessage[]> {
  assertOptions("switchBranch", options);
  return loadChat(await switchTo(options));
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
  assertThread("saveChat", thread);
  assertUIMessages("saveChat", "uiMessages", uiMessages);
  assertOptions("saveChat", options);
  const ifRevision = readIfRevision("saveChat", options.ifRevision);
  const target = runTarget(thread) ?? thread;
  if (isServiceThread(target)) {
    // The service gives messages ids of its own and keeps no metadata: a save could not tell what it holds.
    throw new UnsupportedOperationError(
      target.type,
      "saveChat",
      "its service names messages itself and keeps no skein metadata, so a second save could not find what the first wrote; keep the chat in a thread skein keeps (memory, file, redis) and run the service's runner on it",
      { source: SOURCE },
    );
  }
  // Owner and title first: one the store refuses (too long, empty) is refused before any message is written.
  const moved = await updateOwnerAndTitle(thread, options, ifRevision);
  // The update moved the revision the caller checked: the messages are then checked against the update's.
  const saved = await saveMessages(thread, uiMessages, moved ? thread.revision : ifRevision);
  return { ...saved, revision: thread.revision };
}

/**
 * Sets the owner and title given that the thread does not hold already (so a repeated save writes nothing),
 * under `ifRevision`; true when it wrote.
 */
async function updateOwnerAndTitle(
  thread: Thread,
  options: SaveChatOptions,
  ifRevision: number | undefined,
): Promise<boolean> {
  if (options.owner === undefined && options.title === undefined) return false;
  await thread.refresh();
  const current = thread as Thread & { owner?: string; title?: string };
  const change = {
    ...(options.owner !== undefined && options.owner !== current.owner ? { owner: options.owner } : {}),
    ...(options.title !== undefined && options.title !== current.title ? { title: options.title } : {}),
  };
  if (Object.keys(change).length === 0) return false;
  await thread.update(change, ifRevision === undefined ? {} : { ifRevision });
  return ifRevision !== undefined;
}

async function saveMessages(
  thread: Thread,
  uiMessages: readonly UIMessage[],
  ifRevision: number | undefined,
): Promise<SaveChatResult> {
  for (let attempt = 0; ; attempt++) {
    const { stored, seen } = await readStoredChat(thread, uiMessages);
    const plan = planSave(thread.id, stored, uiMessages);
    if (plan.kind === "none") return { appended: [], revision: thread.revision };
    const messages = fromUIMessages(plan.messages);
    if (plan.kind === "append") {
      const appended = await thread.append(messages, { ifRevision });
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
      // A regenerated answer (or a question edited under a new id) is kept as a version of the one it replaces.
      const appended =
        (await replaceAsVersion(thread, plan, messages, ifRevision ?? seen)) ??
        ((await thread.rollback(plan.target, {
          append: messages,
          ifRevision: ifRevision ?? seen,
        })) as Message[]);
      return { appended, replacedFrom: plan.from, revision: thread.revision };
    } catch (error) {
      const retry = ifRevision === undefined && seen !== undefined && attempt < SAVE_RETRIES;
      if (!retry || !ConcurrencyError.isInstance(error)) throw error;
    }
  }
}

/**
 * The part of the thread a save needs, and the revision it was read at (a replacement is refused if the thread
 * moved on since). A thread that looks messages up by id is read from the client's first message on, so a
 * client that sends only its new messages costs a few lookups, not a read of the whole chat.
 */
async function readStoredChat(
  thread: Thread,
  uiMessages: readonly UIMessage[],
): Promise<{ stored: StoredChat; seen: number | undefined }> {
  const first = uiMessages[0];
  if (!thread.message || !first) {
    const groups = groupUIMessages(settled(await thread.messages()));
    const seen = thread.revision;
    const ids = new Set(groups.map((group) => group.message.id));
    return { stored: { groups, before: undefined, holds: (id) => ids.has(id) }, seen };
  }
  const found = await thread.message(first.id);
  const seen = thread.revision;
  if (!found) {
    const held = await Promise.all(
      uiMessages.map(async (message) => (await thread.message?.(message.id)) !== undefined),
    );
    const ids = new Set(uiMessages.filter((_, index) => held[index]).map((message) => message.id));
    return { stored: { groups: [], before: undefined, holds: (id) => ids.has(id) }, seen };
  }
  const [before] = await thread.messages({ before: first.id, limit: 1 });
  const suffix = settled(await thread.messages(before ? { after: before.id } : {}));
  const groups = groupUIMessages(suffix);
  const ids = new Set(groups.map((group) => group.message.id));
  return { stored: { groups, before: before?.id, holds: (id) => ids.has(id) }, seen };
}

/** A message's `status` (skein's streaming replies): `"streaming"`, `"interrupted"`, or none once it ended whole. */
function statusOf(message: Message): string | undefined {
  const { status } = message as Message & { status?: unknown };
  return typeof status === "string" ? status : undefined;
}

/** The messages without replies still streaming: what a save compares with and a page loads. */
function settled(messages: Message[]): Message[] {
  return messages.some((message) => statusOf(message) === "streaming")
    ? messages.filter((message) => statusOf(message) !== "streaming")
    : messages;
}

/** The UI messages with `metadata.skein.status` on each whose first skein message has a status. */
function markStatus(messages: readonly Message[], uiMessages: UIMessage[]): UIMessage[] {
  const statuses = new Map<string, string>();
  for (const message of messages) {
    const status = statusOf(message);
    if (status !== undefined) statuses.set(message.id, status);
  }
  if (statuses.size === 0) return uiMessages;
  return uiMessages.map((uiMessage) => {
    const status = statuses.get(uiMessage.id);
    if (status === undefined) return uiMessage;
    const metadata = (uiMessage.metadata ?? {}) as Record<string, unknown>;
    // An application's metadata that is not an object has no room for skein's key: it is left as it is.
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return uiMessage;
    const skein = (metadata[SKEIN_METADATA] ?? {}) as Record<string, unknown>;
    return { ...uiMessage, metadata: { ...metadata, [SKEIN_METADATA]: { ...skein, status } } };
  });
}
