// One of several processes racing on one thread with `ifRevision`. Prints "ready", then for each line
// `<round> <revision> <operation> [target]` on stdin makes that change with { ifRevision: revision } and
// prints "<round> won" or "<round> lost <error name>". Operations: append (message "r<round>-<writer>"),
// update (metadata { round, writer }), rollback (to the message id `target`). A line `<round> refresh`
// re-reads the thread and answers "<round> refreshed".
// Usage: conditional-writer.ts <store url> <thread id> <writer>
import { createInterface } from "node:readline";
import { openStore } from "@skein/thread-core";
import { raceOnce } from "../support/conditional-change.js";

const [url, threadId, writer] = process.argv.slice(2) as [string, string, string];
const store = await openStore(url);
const thread = await store.get(threadId);
process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin })) {
  const [round, revision, operation, target] = line.split(" ") as [
    string,
    string,
    string,
    string | undefined,
  ];
  if (revision === "refresh") {
    await thread.refresh();
    process.stdout.write(`${round} refreshed\n`);
    continue;
  }
  const outcome = await raceOnce(thread, writer, {
    round: Number(round),
    revision: Number(revision),
    operation: operation as "append" | "update" | "rollback",
    target,
  });
  process.stdout.write(`${round} ${outcome}\n`);
}
await store.close();
