import { useState } from "preact/hooks";
import type { WriteRequest, WriteResult } from "../api-types.js";
import { ApiError, errorText, postJson } from "./api-client.js";
import type { ThreadRef } from "./message-window.js";

interface TitleEditorProps {
  thread: ThreadRef;
  title: string | undefined;
  /** The revision on screen: the change is refused if the thread has moved past it. */
  revision: number | null;
  /** Started with `--write` and the thread's title can be changed here. */
  editable: boolean;
  onWritten: () => void;
}

/**
 * The thread's title, as text. With `--write`, "edit title" opens a field; saving sends the revision the
 * title was read at when editing began, so a title changed meanwhile elsewhere is reported, not overwritten.
 */
export function TitleEditor({ thread, title, revision, editable, onWritten }: TitleEditorProps) {
  // The revision and title the person started from: the live poll may move the page on while they type.
  const [editing, setEditing] = useState<{ text: string; revision: number } | undefined>(undefined);
  const [status, setStatus] = useState<{ text: string; failed: boolean } | undefined>(undefined);
  const save = async () => {
    if (!editing) return;
    const text = editing.text.trim();
    const request: WriteRequest = {
      id: thread.id,
      ifRevision: editing.revision,
      ...(thread.scope ? { scope: thread.scope } : {}),
      title: text === "" ? null : text,
    };
    try {
      const result = await postJson<WriteResult>("/api/title", request);
      setEditing(undefined);
      setStatus({ text: result.message, failed: false });
      onWritten();
    } catch (caught) {
      const conflict = caught instanceof ApiError && caught.status === 409;
      setStatus({
        text: conflict
          ? `Conflict: the thread changed since you began editing; your title was not saved. ${errorText(caught)}`
          : errorText(caught),
        failed: true,
      });
    }
  };
  if (editing) {
    return (
      <form
        class="title-editor"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <input
          aria-label="title"
          name="title"
          maxLength={1000}
          value={editing.text}
          onInput={(event) => setEditing({ ...editing, text: (event.target as HTMLInputElement).value })}
        />
        <button type="submit" class="write">
          save title
        </button>
        <button type="button" onClick={() => setEditing(undefined)}>
          cancel
        </button>
        {status ? (
          <span class={status.failed ? "title-status failed" : "title-status"}>{status.text}</span>
        ) : null}
      </form>
    );
  }
  return (
    <div class="thread-title">
      {title === undefined ? <span class="muted">no title</span> : <span class="title-text">{title}</span>}
      {editable && revision !== null ? (
        <button
          type="button"
          class="write"
          onClick={() => {
            setStatus(undefined);
            setEditing({ text: title ?? "", revision });
          }}
        >
          edit title
        </button>
      ) : null}
      {status ? (
        <span class={status.failed ? "title-status failed" : "title-status"}>{status.text}</span>
      ) : null}
    </div>
  );
}
