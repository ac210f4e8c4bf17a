// Streams a reply into a thread until it is killed: delta "d<n> " every few milliseconds, each its own batch
// (maxBatchBytes 1), printing "flushed <n>" once delta n is in the store. Prints "begun <message id>" first.
import type { LogThread } from "@skein/thread-core";
import { fsStore } from "../../src/index.js";

const [directory, threadId, leaseMs] = process.argv.slice(2) as [string, string, string];
const store = fsStore({ directory });
const thread = (await store.get(threadId)) as LogThread;
const reply = await thread.beginMessage({ role: "assistant", leaseMs: Number(leaseMs), maxBatchBytes: 1 });
process.stdout.write(`begun ${reply.id}\n`);
for (let n = 0; ; n++) {
  await reply.write(`d${n} `);
  process.stdout.write(`flushed ${n}\n`);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
