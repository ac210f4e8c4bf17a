// A writer of an encrypted store in its own process: keys come as `id=hex` pairs in SKEIN_TEST_KEYS (the
// first is current). Opens the thread, prints "ready", waits for a line on stdin, then appends `count`
// messages one at a time, printing each id once its append has returned.
import { once } from "node:events";
import { fsStore } from "../../src/index.js";
import { encryptionFromEnvironment } from "./keys-from-environment.js";

const [directory, threadId, writer, count] = process.argv.slice(2) as [string, string, string, string];
const store = fsStore({ directory, encryption: encryptionFromEnvironment() });
const thread = await store.get(threadId);
process.stdout.write("ready\n");
await once(process.stdin, "data");
for (let index = 0; index < Number(count); index++) {
  const id = `${writer}-${String(index).padStart(5, "0")}`;
  await thread.append({ id, role: "user", text: `message ${index} from ${writer}` });
  process.stdout.write(`${id}\n`);
}
await store.close();
process.stdin.destroy();
