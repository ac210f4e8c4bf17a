// A writer that appends until it is killed. It prints "ready" once the thread is open, then, after each
// append resolves, "ack <id> <id>…" naming the messages of that append (batches of 1–3 messages, of
// varying size, so kills land inside batches and inside long lines).
// Usage: crash-writer.ts <store url> <thread id> <writer>
import { openStore } from "@skein/thread-core";

const [url, threadId, writer] = process.argv.slice(2) as [string, string, string];
const store = await openStore(url);
const thread = await store.get(threadId);
process.stdout.write("ready\n");
for (let index = 0; ; index++) {
  const ids = Array.from({ length: 1 + (index % 3) }, (_, part) => `${writer}-${index}-${part}`);
  await thread.append(
    ids.map((id) => ({ id, role: "user" as const, text: `${id} `.repeat(1 + ((index * 7) % 60)) })),
  );
  process.stdout.write(`ack ${ids.join(" ")}\n`);
}
