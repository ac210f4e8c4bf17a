import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Thread, ThreadStore } from "@skein/thread-core";
import type { FollowEvent, FollowOptions } from "@skein/thread-core/driver";
import { UiRequestError } from "../errors.js";
import { SECURITY_HEADERS } from "./access-token.js";
import { addressFrom, openThread } from "./thread-address.js";

/** A thread whose replies can be followed (local threads of every store). */
interface FollowableThread extends Thread {
  follow(messageId: string, options?: FollowOptions): AsyncGenerator<FollowEvent>;
}

/** A comment line now and then, so proxies and the browser keep a quiet stream open. */
const KEEP_ALIVE_MS = 15_000;

/**
 * `GET /api/follow?id=…&message=…&from=N`: a streaming message as server-sent events, through
 * `thread.follow`. Each delta is an `event: delta` whose `id` is the offset after it, so a browser's
 * `EventSource` that reconnects (sending `Last-Event-ID`) resumes where it stopped; the whole message comes
 * last as `event: end`, then the response ends. A message that had ended gives only `end`. Writes wait for
 * the socket to drain, and `follow` reads the store only when asked for more, so a reader that stops reading
 * holds one batch here at most and never slows the writer. Errors before the first event are JSON, as the
 * other routes answer.
 */
export async function followStream(
  store: ThreadStore,
  request: IncomingMessage,
  response: ServerResponse,
  query: URLSearchParams,
): Promise<void> {
  const thread = (await openThread(store, addressFrom(query))) as Partial<FollowableThread> & Thread;
  const messageId = query.get("message");
  if (!messageId) throw new UiRequestError(400, "Name the message to follow: add ?message=.");
  if (typeof thread.follow !== "function")
    throw new UiRequestError(501, `A ${thread.type} thread does not stream messages into its log here.`);
  const from = resumeOffset(request, query);
  const stopped = new AbortController();
  // The browser left (tab closed, navigation, EventSource.close()): stop following.
  response.once("close", () => stopped.abort());
  const events = (thread as FollowableThread).follow(messageId, { from, signal: stopped.signal });
  let first: IteratorResult<FollowEvent>;
  try {
    first = await events.next();
  } catch (error) {
    if (stopped.signal.aborted) return;
    throw error;
  }
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
  });
  const keepAlive = setInterval(() => response.write(": still streaming\n\n"), KEEP_ALIVE_MS);
  try {
    for (let next = first; !next.done; next = await events.next()) {
      const event = next.value;
      const frame =
        event.type === "delta"
          ? `id: ${event.offset + 1}\nevent: delta\ndata: ${JSON.stringify({ offset: event.offset, delta: event.delta })}\n\n`
          : `event: end\ndata: ${JSON.stringify({ message: event.message })}\n\n`;
      if (!response.write(frame)) await once(response, "drain", { signal: stopped.signal });
    }
  } catch (error) {
    // Stopped by the browser leaving: nothing to tell it. A failure mid-stream ends the stream; the browser
    // reconnects from its last offset.
    if (!stopped.signal.aborted) response.destroy(error instanceof Error ? error : undefined);
    return;
  } finally {
    clearInterval(keepAlive);
    await events.return(undefined);
  }
  response.end();
}

/** Where to start: the `Last-Event-ID` of a reconnecting `EventSource`, else `?from=`, else 0. */
function resumeOffset(request: IncomingMessage, query: URLSearchParams): number {
  const header = request.headers["last-event-id"];
  const text = (typeof header === "string" && header !== "" ? header : query.get("from")) ?? "0";
  if (!/^\d{1,15}$/.test(text))
    throw new UiRequestError(400, `from must be a whole number, not ${JSON.stringify(text.slice(0, 40))}.`);
  return Number(text);
}
