import { useState } from "preact/hooks";
import type { BranchShown, WriteRequest, WriteResult } from "../api-types.js";
import { ApiError, errorText, postJson } from "./api-client.js";
import type { ThreadRef } from "./message-window.js";

interface BranchBannerProps {
  thread: ThreadRef;
  branch: BranchShown;
  /** The message's place, counted from 1 as the page shows it. */
  number: number;
  /** The thread's revision when the branch on screen was read: "make current" is refused past it. */
  revision: number | null;
  /** Offer "make current" (`--write`, and a thread of its own, not a workflow's sub-thread). */
  write: boolean;
  onBack: () => void;
  onMadeCurrent: () => void;
}

/**
 * Says that the page shows another version's branch than the thread's current one, read-only. "make
 * current" sends `switchTo` with the revision the branch was read at: a thread changed meanwhile is a
 * conflict, shown, and nothing is written.
 */
export function BranchBanner({
  thread,
  branch,
  number,
  revision,
  write,
  onBack,
  onMadeCurrent,
}: BranchBannerProps) {
  const [status, setStatus] = useState<string | undefined>(undefined);
  const makeCurrent = async () => {
    const request: WriteRequest = {
      id: thread.id,
      ifRevision: revision ?? 0,
      ...(thread.scope ? { scope: thread.scope } : {}),
      alternativeId: branch.version.id,
      index: branch.version.index,
    };
    try {
      await postJson<WriteResult>("/api/switch", request);
      setStatus(undefined);
      onMadeCurrent();
    } catch (caught) {
      setStatus(
        caught instanceof ApiError && caught.status === 409
          ? `Conflict: the thread changed since this branch was read. ${errorText(caught)}`
          : errorText(caught),
      );
    }
  };
  return (
    <div class="branch-banner">
      <span>
        version {branch.version.index + 1} of {branch.count} of message #{number}, read-only; the thread's
        current branch has version {branch.current + 1}
      </span>
      <button type="button" onClick={onBack}>
        back to current
      </button>
      {write ? (
        <button type="button" class="write" onClick={() => void makeCurrent()}>
          make current
        </button>
      ) : null}
      {status ? <span class="write-status failed">{status}</span> : null}
    </div>
  );
}
