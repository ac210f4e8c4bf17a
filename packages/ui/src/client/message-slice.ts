import type { Message } from "@skein/thread-core";
import type { BranchShown, MessagePage, VersionMark } from "../api-types.js";

/** The messages a window holds: a run of positions of the thread (or of a version's branch), and what it knows of them. */
export interface Slice {
  from: number;
  length: number;
  messages: Message[];
  /** A remote thread's slice: the id to read the messages before it by (`MessagePage.earlier`). */
  earlier?: string;
  /** Versions of the messages held, by id. */
  versions: Record<string, VersionMark>;
  /** The version whose branch is shown, when it is not the current one. */
  branch?: BranchShown;
  /** The oldest revision the pages held were read at: a write decided on them carries it. */
  revision: number | null;
}

/** A version's branch to show instead of the current one: asked by a message at `position` and an index. */
export interface BranchChoice {
  messageId: string;
  index: number;
  position: number;
}

/** A page as the window holds it; `held` is what it keeps from before (its versions, its oldest revision). */
export function sliceOf(page: MessagePage, held?: Slice): Slice {
  const revision =
    held && held.revision !== null && page.revision !== null
      ? Math.min(held.revision, page.revision)
      : page.revision;
  return {
    from: page.from,
    length: page.length,
    messages: page.messages,
    ...(page.earlier === undefined ? {} : { earlier: page.earlier }),
    versions: { ...held?.versions, ...page.versions },
    ...(page.branch ? { branch: page.branch } : {}),
    revision,
  };
}
