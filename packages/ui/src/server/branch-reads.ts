import {
  type Alternative,
  type Message,
  MessageNotFoundError,
  MessageOffBranchError,
  type Thread,
  type ThreadSnapshot,
} from "@skein/thread-core";
import type { BranchShown, VersionMark } from "../api-types.js";
import { UiRequestError } from "../errors.js";

/** A thread that keeps versions of its messages (a local thread, a workflow's local sub-thread). */
export type VersionedThread = Thread & Required<Pick<Thread, "alternatives" | "switchTo">>;

/** Which version's branch a request asks to see: `?version=MESSAGE&index=K`. */
export interface BranchRequest {
  messageId: string;
  index: number;
}

/** The thread when its type keeps versions of messages, else undefined. */
export function versionedThread(thread: Thread): VersionedThread | undefined {
  const candidate = thread as Partial<VersionedThread>;
  return typeof candidate.alternatives === "function" && typeof candidate.switchTo === "function"
    ? (thread as VersionedThread)
    : undefined;
}

/** The thread, or a 501 naming its type when it keeps no versions of messages. */
export function requireVersioned(thread: Thread): VersionedThread {
  const versioned = versionedThread(thread);
  if (versioned) return versioned;
  throw new UiRequestError(
    501,
    `A ${thread.type} thread keeps no versions of its messages here (only threads kept as a log in a store do).`,
  );
}

/**
 * The branch behind one version of a message, read-only: `thread.at()` at the end `alternatives()` gives
 * it. Nothing is written; the thread's current branch stays what it is.
 */
export async function readBranch(
  thread: Thread,
  request: BranchRequest,
): Promise<{ source: ThreadSnapshot; length: number; branch: BranchShown }> {
  const versions = await requireVersioned(thread).alternatives(request.messageId);
  const version = versions[request.index];
  if (!version) {
    throw new UiRequestError(
      400,
      `The message has ${versions.length} version${versions.length === 1 ? "" : "s"}: give an index from 0 to ${versions.length - 1}, not ${request.index}.`,
    );
  }
  const source = await thread.at(version.end);
  return {
    source,
    length: source.point.position,
    branch: {
      messageId: request.messageId,
      version,
      count: versions.length,
      current: currentIndex(versions),
    },
  };
}

/**
 * Which messages of a page have other versions, and which is shown. Only positions where history recorded a
 * version change are asked (`alternatives()`, one read per version there), so a thread that was never edited
 * costs nothing more. On another version's branch, `shown` is that version; the messages after it are not on
 * the current branch and have no versions to offer here.
 */
export async function versionMarks(
  thread: Thread,
  messages: readonly Message[],
  from: number,
  shown?: Alternative,
): Promise<Record<string, VersionMark>> {
  const versioned = versionedThread(thread);
  if (!versioned || messages.length === 0) return {};
  const positions = new Set<number>();
  for (const event of await thread.history())
    if (event.kind === "rollback" && event.branch) positions.add(event.branch.position);
  const marks: Record<string, VersionMark> = {};
  for (const [offset, message] of messages.entries()) {
    if (!positions.has(from + offset)) continue;
    const versions = await alternativesOf(versioned, message.id);
    if (!versions || versions.length < 2) continue;
    const current = currentIndex(versions);
    const index = shown && message.id === shown.id ? shown.index : current;
    marks[message.id] = { index, current, count: versions.length };
  }
  return marks;
}

/** The versions at a message's place; undefined when it lies further along another branch than the current. */
async function alternativesOf(
  thread: VersionedThread,
  messageId: string,
): Promise<Alternative[] | undefined> {
  try {
    return await thread.alternatives(messageId);
  } catch (error) {
    if (MessageOffBranchError.isInstance(error) || MessageNotFoundError.isInstance(error)) return undefined;
    throw error;
  }
}

function currentIndex(versions: readonly Alternative[]): number {
  return versions.findIndex((version) => version.current);
}
