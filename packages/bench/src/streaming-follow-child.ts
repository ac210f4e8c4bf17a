// A follower of a streamed reply in a process of its own, for the streaming rows (streaming-scenario.ts):
// `node --import tsx src/streaming-follow-child.ts <store url> <thread id> <message id>`. Prints "ready" once
// following, then one line per delta, "<offset> <when received, ms since the epoch>", then "done" at the end.
import { LogThread, openStore } from "@skein/thread-core";

const [url, threadId, messageId] = process.argv.slice(2) as [string, string, string];
const store = await openStore(url);
try {
  const thread = await store.get(threadId);
  if (!LogThread.isInstance(thread)) throw new Error(`${threadId} is no local thread`);
  const events = thread.follow(messageId)[Symbol.asyncIterator]();
  // The first read: the reply's entry and its (empty) segment; the wake-up subscription is made with it.
  const first = events.next();
  setTimeout(() => process.stdout.write("ready\n"), 200);
  for (let next = await first; !next.done; next = await events.next()) {
    const event = next.value;
    if (event.type === "end") break;
    process.stdout.write(`${event.offset} ${performance.timeOrigin + performance.now()}\n`);
  }
  process.stdout.write("done\n");
} finally {
  await store.close();
}
