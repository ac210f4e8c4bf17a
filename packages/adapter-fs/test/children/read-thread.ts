// A reader in its own process: prints the ids of a thread's messages, one per line, in thread order; with
// "texts" as third argument, each id followed by a space and the message's text as JSON. With
// SKEIN_TEST_KEYS set (`keys-from-environment.ts`) the store is opened encrypted.
import { fsStore } from "../../src/index.js";
import { encryptionFromEnvironment } from "./keys-from-environment.js";

const [directory, threadId, shown] = process.argv.slice(2) as [string, string, string | undefined];
const store = fsStore({ directory, encryption: encryptionFromEnvironment() });
const thread = await store.get(threadId);
for (const message of await thread.messages()) {
  const text = message.contents.map((content) => (content.type === "text" ? content.text : "")).join("");
  process.stdout.write(shown === "texts" ? `${message.id} ${JSON.stringify(text)}\n` : `${message.id}\n`);
}
await store.close();
