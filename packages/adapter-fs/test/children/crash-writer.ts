// A writer that appends until it is killed. It prints "ready" once the thread is open, then, after each
// append returns, one line "ack <id> <id>…" naming the messages of that append (batches of 1–3).
import { fsStore } from "../../src/index.js";

const [directory, threadId, writer] = process.argv.slice(2) as [string, string, string];
const store = fsStore({ directory });
const thread = await store.get(threadId);
process.stdout.write("ready\n");
for (let index = 0; ; index++) {
  const ids = Array.from({ length: 1 + (index % 3) }, (_, part) => `${writer}-${index}-${part}`);
  await thread.append(
    ids.map((id) => ({ id, role: "user" as const, text: `${id} `.repeat(1 + (index % 50)) })),
  );
  process.stdout.write(`ack ${ids.join(" ")}\n`);
}
