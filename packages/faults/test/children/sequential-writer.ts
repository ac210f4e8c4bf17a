// One of several writers of one thread: opens the store and the thread, prints "ready", waits for a line on
// stdin (so that all writers start together), then appends `count` messages one at a time and prints each
// message id once its append has resolved. Usage: sequential-writer.ts <store url> <thread id> <writer> <count>
import { once } from "node:events";
import { openStore } from "@skein/thread-core";

const [url, threadId, writer, count] = process.argv.slice(2) as [string, string, string, string];
const store = await openStore(url);
const thread = await store.get(threadId);
process.stdout.write("ready\n");
await once(process.stdin, "data");
for (let index = 0; index < Number(count); index++) {
  const id = `${writer}-${String(index).padStart(4, "0")}`;
  await thread.append({ id, role: "user", text: `message ${index} from ${writer}` });
  process.stdout.write(`${id}\n`);
}
await store.close();
process.stdin.destroy();
