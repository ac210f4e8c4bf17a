import type { LogPoint } from "@skein/thread-core";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { MessagePage } from "../api-types.js";
import { errorText, getJson } from "./api-client.js";
import { BranchBanner } from "./branch-banner.js";
import { FollowedMessageItem } from "./followed-message-item.js";
import { MessageItem, type MessageItemProps, pairCalls } from "./message-item.js";
import { type BranchChoice, type Slice, sliceOf } from "./message-slice.js";
import type { ThreadRef } from "./thread-ref.js";
import { WindowBar } from "./window-bar.js";

/** Messages fetched per request. */
const PAGE = 50;
/** Messages kept in the page at most: the window slides, the rest is not in the DOM. */
const MAX_WINDOW = 250;

interface MessageWindowProps {
  thread: ThreadRef;
  /** Read the thread as it was here (`at()`). */
  point?: LogPoint;
  /** Changes when the thread does: the window then follows new messages if it shows the newest. */
  version?: string;
  /** Ids of the messages a view keeps; the others are greyed. */
  kept?: ReadonlySet<string>;
  compact?: boolean;
  /** Offer "make current" on a version's branch shown (`--write`). */
  write?: boolean;
  /** A write changed the thread. */
  onWritten?: () => void;
}

/**
 * A thread's messages as a chat, virtualised: it opens on the last page, reads earlier or later pages as
 * the reader scrolls to an edge (one page per read, whatever the thread's length), and keeps at most
 * MAX_WINDOW messages in the page.
 */
export function MessageWindow({
  thread,
  point,
  version,
  kept,
  compact,
  write,
  onWritten,
}: MessageWindowProps) {
  const [slice, setSlice] = useState<Slice | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const container = useRef<HTMLDivElement>(null);
  const loading = useRef(false);
  const anchor = useRef<{ position: number; offset: number } | "bottom" | undefined>(undefined);
  const pointText = point ? JSON.stringify(point) : undefined;
  // Read by every fetch (a ref, so a read already queued reads the branch chosen last).
  const branch = useRef<BranchChoice | undefined>(undefined);

  const fetchPage = (from: number | undefined, limit = PAGE) =>
    getJson<MessagePage>("/api/messages", {
      ...thread,
      at: pointText,
      version: branch.current?.messageId,
      index: branch.current?.index,
      from,
      limit,
    });
  const fetchBefore = (before: string) =>
    getJson<MessagePage>("/api/messages", { ...thread, at: pointText, before, limit: PAGE });

  // One read at a time. An edge read asked for meanwhile is dropped (the edge asks again once drawn); a
  // reload of the end is kept and runs next, so a change seen during a read is not lost.
  const queued = useRef<(() => Promise<void>) | undefined>(undefined);
  const run = async (task: () => Promise<void>, keep = false) => {
    if (loading.current) {
      if (keep) queued.current = task;
      return;
    }
    loading.current = true;
    try {
      await task();
      setError(undefined);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      loading.current = false;
      const next = queued.current;
      queued.current = undefined;
      if (next) void run(next);
    }
  };

  const loadEnd = () =>
    run(async () => {
      const page = await fetchPage(undefined);
      anchor.current = "bottom";
      setSlice(sliceOf(page));
    }, true);

  const loadAt = (position: number) =>
    run(async () => {
      const page = await fetchPage(Math.max(0, position));
      anchor.current = undefined;
      setSlice(sliceOf(page));
      if (container.current) container.current.scrollTop = 0;
    }, true);

  const loadEarlier = () =>
    run(async () => {
      if (slice?.earlier !== undefined) {
        // A remote thread has no positions: its earlier page is read back from the first message shown, and
        // the messages shown move down by its length (all are kept: the thread cannot be re-read by position).
        const page = await fetchBefore(slice.earlier);
        keepAnchor();
        if (anchor.current && anchor.current !== "bottom") anchor.current.position += page.messages.length;
        const messages = [...page.messages, ...slice.messages];
        setSlice(sliceOf({ ...page, from: 0, length: messages.length, messages }, slice));
        return;
      }
      if (!slice || slice.from === 0) return;
      const count = Math.min(PAGE, slice.from);
      const page = await fetchPage(slice.from - count, count);
      keepAnchor();
      const messages = [...page.messages, ...slice.messages].slice(0, MAX_WINDOW);
      setSlice(sliceOf({ ...page, messages }, slice));
    });

  const loadLater = () =>
    run(async () => {
      if (!slice) return;
      const end = slice.from + slice.messages.length;
      if (end >= slice.length) return;
      const page = await fetchPage(end);
      keepAnchor();
      const messages = [...slice.messages, ...page.messages];
      const dropped = Math.max(0, messages.length - MAX_WINDOW);
      setSlice(sliceOf({ ...page, from: slice.from + dropped, messages: messages.slice(dropped) }, slice));
    });

  /**
   * Shows the branch of version `index` of the message at `position` (read-only), or the current branch
   * again when that version is the current one, keeping that message where it was on screen.
   */
  const flip = (position: number, messageId: string, index: number, current: number) => {
    const box = container.current;
    const element = box?.querySelector<HTMLElement>(`[data-position="${position}"]`);
    const offset = box && element ? element.getBoundingClientRect().top - box.getBoundingClientRect().top : 0;
    branch.current = index === current ? undefined : { messageId, index, position };
    return run(async () => {
      const page = await fetchPage(Math.max(0, position - PAGE / 2));
      anchor.current = { position, offset };
      setSlice(sliceOf(page));
    }, true);
  };

  /** Back to the thread's current branch, at its end. */
  const showCurrent = () => {
    branch.current = undefined;
    return loadEnd();
  };

  /** Remembers where the first visible message is, so adding or dropping pages does not move the view. */
  function keepAnchor() {
    const box = container.current;
    if (!box) return;
    const top = box.getBoundingClientRect().top;
    for (const element of box.querySelectorAll<HTMLElement>("[data-position]")) {
      const rectangle = element.getBoundingClientRect();
      if (rectangle.bottom > top) {
        anchor.current = { position: Number(element.dataset.position), offset: rectangle.top - top };
        return;
      }
    }
  }

  useLayoutEffect(() => {
    const box = container.current;
    const wanted = anchor.current;
    anchor.current = undefined;
    if (!box || !wanted) return;
    if (wanted === "bottom") {
      box.scrollTop = box.scrollHeight;
      return;
    }
    const element = box.querySelector<HTMLElement>(`[data-position="${wanted.position}"]`);
    if (element)
      box.scrollTop += element.getBoundingClientRect().top - box.getBoundingClientRect().top - wanted.offset;
  }, [slice]);

  // A new thread or point: start again from its end, on its current branch.
  useEffect(() => {
    setSlice(undefined);
    branch.current = undefined;
    loadEnd();
  }, [thread.id, thread.scope, thread.sub, pointText]);

  // The thread changed elsewhere: follow it when the newest messages are on screen.
  const seenVersion = useRef(version);
  useEffect(() => {
    if (version === seenVersion.current) return;
    seenVersion.current = version;
    if (!slice || slice.from + slice.messages.length >= slice.length) loadEnd();
    else
      run(async () => {
        const page = await fetchPage(slice.from, Math.min(slice.messages.length, MAX_PAGE_REQUEST));
        keepAnchor();
        setSlice(sliceOf(page));
      });
  }, [version]);

  // Reaching an edge reads the next page there.
  useEffect(() => {
    const box = container.current;
    if (!box) return;
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          if ((entry.target as HTMLElement).dataset.edge === "top") loadEarlier();
          else loadLater();
        }
      },
      { root: box, rootMargin: "200px 0px" },
    );
    for (const edge of box.querySelectorAll("[data-edge]")) observer.observe(edge);
    return () => observer.disconnect();
  });

  const pairs = useMemo(() => pairCalls(slice?.messages ?? []), [slice]);
  const end = slice ? slice.from + slice.messages.length : 0;
  return (
    <div class={`message-window${compact ? " compact" : ""}`}>
      <WindowBar
        summary={
          !slice
            ? "loading…"
            : slice.earlier !== undefined
              ? `the last ${slice.messages.length} messages`
              : // A message still streaming comes after the log's length: it is counted once shown.
                `messages ${slice.messages.length ? slice.from + 1 : 0}–${end} of ${Math.max(slice.length, end)}`
        }
        compact={Boolean(compact)}
        onJump={(position) => loadAt(position)}
        onFirst={() => loadAt(0)}
        onNewest={() => loadEnd()}
      />
      {slice?.branch && branch.current ? (
        <BranchBanner
          thread={thread}
          branch={slice.branch}
          number={branch.current.position + 1}
          revision={slice.revision}
          write={Boolean(write) && !thread.sub}
          onBack={() => void showCurrent()}
          onMadeCurrent={() => {
            void showCurrent();
            onWritten?.();
          }}
        />
      ) : null}
      {error ? (
        <div class="error-banner">
          {error}
          {branch.current ? (
            <button type="button" onClick={() => void showCurrent()}>
              back to current
            </button>
          ) : null}
        </div>
      ) : null}
      <div class="messages" ref={container}>
        {slice && (slice.from > 0 || slice.earlier !== undefined) ? (
          <button type="button" class="edge" data-edge="top" onClick={() => loadEarlier()}>
            {slice.earlier === undefined ? `${slice.from} earlier messages` : "earlier messages"}
          </button>
        ) : null}
        {slice?.messages.length === 0 ? <div class="muted empty">no messages</div> : null}
        {slice?.messages.map((message, index) => (
          // A message still streaming (on the thread as it is now) is followed live; the past is shown as read.
          <ShownMessage
            followed={message.status === "streaming" && !point && !branch.current ? thread : undefined}
            key={message.id}
            message={message}
            position={slice.from + index}
            results={pairs.results}
            calls={pairs.calls}
            dropped={kept ? !kept.has(message.id) : false}
            versions={slice.versions[message.id]}
            // The context view and a point of the past are about the current branch: they show, not flip.
            onFlip={
              kept || point
                ? undefined
                : (chosen) =>
                    void flip(
                      slice.from + index,
                      message.id,
                      chosen,
                      slice.versions[message.id]?.current ?? -1,
                    )
            }
          />
        ))}
        {slice && end < slice.length ? (
          <button type="button" class="edge" data-edge="bottom" onClick={() => loadLater()}>
            {slice.length - end} later messages
          </button>
        ) : null}
      </div>
    </div>
  );
}

/** A message as read, or followed live while it streams (`followed`: its thread). */
function ShownMessage({ followed, ...props }: MessageItemProps & { followed: ThreadRef | undefined }) {
  return followed ? <FollowedMessageItem {...props} thread={followed} /> : <MessageItem {...props} />;
}

/** The server's own cap on one page. */
const MAX_PAGE_REQUEST = 200;
