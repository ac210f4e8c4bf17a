// A reader in its own process: prints the ids of a thread's messages, one per line, in thread order.
import { fsStore } from "../../src/index.js";

const [directory, threadId] = process.argv.slice(2) as [string, string];
const store = fsStore({ directory });
const thread = await store.get(threadId);
for (const message of await thread.messages()) process.stdout.write(`${message.id}\n`);
await store.close();
