// A reader that keeps reading a thread while others write it: prints each snapshot of its message ids as a
// JSON array on one line, until a line arrives on stdin. Usage: watching-reader.ts <store url> <thread id>
import { openStore } from "@skein/thread-core";

const [url, threadId] = process.argv.slice(2) as [string, string];
const store = await openStore(url);
const thread = await store.get(threadId);
let stopped = false;
process.stdin.once("data", () => {
  stopped = true;
});
process.stdout.write("ready\n");
while (!stopped) {
  const ids = (await thread.messages()).map((message) => message.id);
  process.stdout.write(`${JSON.stringify(ids)}\n`);
  await new Promise((resolve) => setTimeout(resolve, 50));
}
await store.close();
process.stdin.destroy();
