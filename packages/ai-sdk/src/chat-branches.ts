import type { Alternative, Message, Thread } from "@skein/thread-core";
import type { UIMessage } from "ai";
import { ChatArgumentError } from "./errors.js";
import { isRecord } from "./namespace.js";
import type { UIMessageGroup } from "./to-ui-messages.js";

/** The key of a UI message's `metadata` that `loadChat` fills with `{ index, count }` of its versions. */
export const SKEIN_METADATA = "skein";

/** What `metadata.skein` of a loaded UI message holds when the message has versions. */
export interface ChatVersions {
  /** This version's place among them, from 0 (the original). */
  index: number;
  count: number;
}

type VersionedThread = Thread & Required<Pick<Thread, "edit" | "regenerate" | "alternatives" | "switchTo">>;

/** The thread when it keeps versions of messages (a local thread), else undefined. */
export function versionedThread(thread: Thread): VersionedThread | undefined {
  const candidate = thread as Partial<VersionedThread>;
  return typeof candidate.edit === "function" &&
    typeof candidate.regenerate === "function" &&
    typeof candidate.alternatives === "function" &&
    typeof candidate.switchTo === "function"
    ? (thread as VersionedThread)
    : undefined;
}

/**
 * Replaces the message `from` and everything after it with `messages` as a new version of it, when the thread
 * keeps versions and the first new message has the same role: a regenerated answer (another id:
 * `regenerate`), or an edited question (`sendMessage({ messageId })` keeps the id; `edit`), in one change.
 * Undefined for an assistant message re-sent under its id with new parts (a continuation, a tool approval or
 * result: the same answer going on, not another one), which the caller writes as a rollback.
 */
export async function replaceAsVersion(
  thread: Thread,
  plan: { from: string; fromRole: UIMessage["role"] },
  messages: Message[],
  ifRevision: number | undefined,
): Promise<Message[] | undefined> {
  const versioned = versionedThread(thread);
  const [first, ...rest] = messages;
  if (!versioned || !first || first.role !== plan.fromRole) return undefined;
  if (first.id === plan.from && plan.fromRole === "assistant") return undefined;
  const options = {
    ...(ifRevision === undefined ? {} : { ifRevision }),
    ...(rest.length ? { append: rest } : {}),
  };
  const stored =
    plan.fromRole === "assistant"
      ? await versioned.regenerate(plan.from, first, options)
      : await versioned.edit(plan.from, first, options);
  // The messages that followed were written in the same change, as given: read back only when there are any.
  if (!stored) return [];
  return rest.length === 0 ? [stored] : [stored, ...(await thread.messages({ after: stored.id }))];
}

/**
 * The UI messages with `{ index, count }` under `metadata.skein` on each whose first skein message has other
 * versions. Only positions where history recorded a version change are asked, one read per version there.
 */
export async function markVersions(
  thread: Thread,
  stored: readonly Message[],
  groups: UIMessageGroup[],
): Promise<UIMessage[]> {
  const versioned = versionedThread(thread);
  const messages = groups.map((group) => group.message);
  if (!versioned) return messages;
  const positions = new Set<number>();
  for (const event of await thread.history())
    if (event.kind === "rollback" && event.branch) positions.add(event.branch.position);
  if (positions.size === 0) return messages;
  // The skein position of each group's first message: groups are runs of consecutive messages.
  const firsts = new Map<string, number>();
  for (const [index, message] of stored.entries()) firsts.set(message.id, index);
  return Promise.all(
    groups.map(async (group) => {
      const position = firsts.get(group.first);
      if (position === undefined || !positions.has(position)) return group.message;
      const versions: Alternative[] = await versioned.alternatives(group.first);
      if (versions.length < 2) return group.message;
      const index = versions.findIndex((version) => version.current);
      return withVersions(group.message, { index, count: versions.length });
    }),
  );
}

function withVersions(message: UIMessage, versions: ChatVersions): UIMessage {
  const metadata = message.metadata;
  // An application's metadata that is not an object has no room for skein's key: it is left as it is.
  if (metadata !== undefined && !isRecord(metadata)) return message;
  return { ...message, metadata: { ...(metadata ?? {}), [SKEIN_METADATA]: versions } };
}

/** A UI message's metadata without what `loadChat` added (`metadata.skein`), so a save never stores it. */
export function withoutVersions(metadata: unknown): unknown {
  if (!isRecord(metadata) || !(SKEIN_METADATA in metadata)) return metadata;
  const { [SKEIN_METADATA]: _versions, ...rest } = metadata;
  return Object.keys(rest).length === 0 ? undefined : rest;
}

/** Options of `switchBranch`: the store, the chat, a message and the version to show. */
export interface SwitchBranchOptions {
  store: { get(id: string): Promise<Thread> };
  chatId: string;
  /** Any version of the message whose versions to switch between (the one shown, usually). */
  messageId: string;
  /** The version to make current: its index (from `metadata.skein.index`) or its message id. */
  to: number | string;
}

/**
 * Makes another version of a message current and returns the chat's UI messages on that branch (as `loadChat`).
 * @example setMessages(await switchBranch({ store, chatId, messageId, to: index + 1 }))
 */
export async function switchTo(options: SwitchBranchOptions): Promise<VersionedThread> {
  const thread = await options.store.get(options.chatId);
  const versioned = versionedThread(thread);
  if (!versioned) {
    throw new ChatArgumentError(
      "switchBranch",
      "chatId",
      "a chat kept in a thread that keeps versions of messages (memory, file, redis, postgres)",
      `a ${thread.type} thread`,
    );
  }
  const versions = await versioned.alternatives(options.messageId);
  const target =
    typeof options.to === "number"
      ? versions[options.to]
      : versions.find((version) => version.id === options.to);
  if (!target) {
    throw new ChatArgumentError(
      "switchBranch",
      "to",
      `a version of message ${JSON.stringify(options.messageId)}: an index from 0 to ${versions.length - 1}, or a version's id`,
      JSON.stringify(options.to),
    );
  }
  await versioned.switchTo(target.id, { index: target.index });
  return versioned;
}
