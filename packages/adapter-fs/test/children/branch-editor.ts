// An editor in its own process: opens the thread, prints "ready", waits for a line on stdin (so that both
// editors start together), then edits message `messageId` `count` times, each edit a new version under
// `<writer>-<n>`, and switches back to its own first version after every fifth; prints each version's id
// once its edit has returned.
import { once } from "node:events";
import type { LogThread } from "@skein/thread-core";
import { fsStore } from "../../src/index.js";

const [directory, threadId, messageId, writer, count] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const store = fsStore({ directory });
const thread = (await store.get(threadId)) as LogThread;
process.stdout.write("ready\n");
await once(process.stdin, "data");
for (let index = 0; index < Number(count); index++) {
  const id = `${writer}-${String(index).padStart(3, "0")}`;
  await thread.edit(messageId, { id, role: "user", text: `version ${index} from ${writer}` });
  process.stdout.write(`${id}\n`);
  if (index % 5 === 4) await thread.switchTo(`${writer}-000`);
}
await store.close();
process.stdin.destroy();
