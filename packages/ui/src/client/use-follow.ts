import type { Content, Message } from "@skein/thread-core";
import { useEffect, useState } from "preact/hooks";
import { eventStreamUrl } from "./api-client.js";
import type { ThreadRef } from "./thread-ref.js";

/**
 * A message that streams, as it grows: its deltas from the server's `/api/follow` (server-sent events over
 * `thread.follow`), joined as the thread joins them, then the whole message once it ended (with its status,
 * `interrupted` when it did not end normally), after which the stream is closed. `EventSource` reconnects by
 * itself after a dropped connection, from the last offset it had. Until the first event, the message as the
 * page read it.
 */
export function useFollowedMessage(thread: ThreadRef, message: Message): Message {
  const [shown, setShown] = useState<Message>(message);
  useEffect(() => {
    let contents: Content[] = [];
    const source = new EventSource(eventStreamUrl("/api/follow", { ...thread, message: message.id }));
    source.addEventListener("delta", (event) => {
      const { offset, delta } = JSON.parse((event as MessageEvent<string>).data) as {
        offset: number;
        delta: Content;
      };
      // Deltas from 0 rebuild the contents (the page's copy holds the flushed ones, already joined).
      if (offset === 0) contents = [];
      contents = joinDelta(contents, delta);
      setShown({ ...message, contents, status: "streaming" });
    });
    source.addEventListener("end", (event) => {
      source.close();
      setShown((JSON.parse((event as MessageEvent<string>).data) as { message: Message }).message);
    });
    return () => source.close();
  }, [thread.id, thread.scope, thread.sub, message.id]);
  return shown;
}

/** Runs of text (and of reasoning) join into one part, as the thread joins them when the message ends. */
function joinDelta(contents: Content[], delta: Content): Content[] {
  const last = contents[contents.length - 1];
  if (last && joinable(last) && joinable(delta) && last.type === delta.type) {
    return [...contents.slice(0, -1), { ...last, text: `${last.text}${delta.text}` } as Content];
  }
  return [...contents, delta];
}

function joinable(content: Content): content is Content & { text: string } {
  return (
    (content.type === "text" || content.type === "reasoning") &&
    typeof content.text === "string" &&
    Object.keys(content).length === 2
  );
}
