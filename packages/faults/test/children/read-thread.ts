// A reader in its own process: prints the ids of a thread's messages in thread order, one per line, and
// then the thread's revision as "revision <n>". Usage: read-thread.ts <store url> <thread id>
import { openStore } from "@skein/thread-core";

const [url, threadId] = process.argv.slice(2) as [string, string];
const store = await openStore(url);
const thread = await store.get(threadId);
const ids = (await thread.messages()).map((message) => message.id);
await thread.refresh();
process.stdout.write(`${ids.join("\n")}\nrevision ${thread.revision}\n`);
await store.close();
