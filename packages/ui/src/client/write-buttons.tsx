import type { LogPoint } from "@skein/thread-core";
import { useState } from "preact/hooks";
import type { WriteRequest, WriteResult } from "../api-types.js";
import { errorText, postJson } from "./api-client.js";
import { href } from "./route.js";
import type { ThreadRef } from "./thread-ref.js";

interface WriteButtonsProps {
  thread: ThreadRef;
  /** The revision on screen: every write is refused if the thread has moved past it. */
  revision: number | null;
  /** Fork or roll back here; with neither this nor `atEnd`, a checkpoint of the end. */
  point?: LogPoint;
  /** The HEAD of the graph: fork from the end (rolling back to where the thread already is makes no sense). */
  atEnd?: boolean;
  onWritten: () => void;
}

/** Fork, checkpoint and rollback, each sent with the revision the person saw (`ifRevision`). */
export function WriteButtons({ thread, revision, point, atEnd, onWritten }: WriteButtonsProps) {
  const [status, setStatus] = useState<{ text: string; failed: boolean; forkId?: string } | undefined>(
    undefined,
  );
  const [label, setLabel] = useState("");
  const send = async (action: "fork" | "checkpoint" | "rollback") => {
    const request: WriteRequest = {
      id: thread.id,
      ifRevision: revision ?? 0,
      ...(thread.scope ? { scope: thread.scope } : {}),
      ...(point && action !== "checkpoint" ? { point } : {}),
      ...(action === "checkpoint" && label ? { label } : {}),
    };
    try {
      const result = await postJson<WriteResult>(`/api/${action}`, request);
      setStatus({
        text: result.message,
        failed: false,
        ...(result.threadId ? { forkId: result.threadId } : {}),
      });
      onWritten();
    } catch (caught) {
      setStatus({ text: errorText(caught), failed: true });
    }
  };
  return (
    <span class="write-buttons">
      {atEnd ? (
        <button type="button" class="write" onClick={() => send("fork")}>
          fork here
        </button>
      ) : point ? (
        <>
          <button type="button" class="write" onClick={() => send("fork")}>
            fork here
          </button>
          <button type="button" class="write" onClick={() => send("rollback")}>
            roll back here
          </button>
        </>
      ) : (
        <>
          <input
            aria-label="checkpoint label"
            placeholder="label"
            value={label}
            onInput={(event) => setLabel((event.target as HTMLInputElement).value)}
          />
          <button type="button" class="write" onClick={() => send("checkpoint")}>
            checkpoint
          </button>
        </>
      )}
      {status ? (
        <span class={status.failed ? "write-status failed" : "write-status"}>
          {status.text}
          {status.forkId ? (
            <a href={href("thread", { id: status.forkId, scope: thread.scope })}> open</a>
          ) : null}
        </span>
      ) : null}
    </span>
  );
}
