// The fs store's one-writer vs 50-threads-at-once measurement (aggregateTimes in files-commit.ts) alone, in
// a process of its own, so that it can be started with another libuv thread pool size, which Node reads
// once at start: `UV_THREADPOOL_SIZE=32 node --import tsx src/files-concurrency-child.ts [rounds]`. Prints
// [one writer, 50 threads at once] in µs per append, as JSON.
import { openStore } from "@skein/thread-core";
import { aggregateTimes } from "./files-commit.js";
import { temporaryDirectory } from "./temporary-directory.js";
import { workloadMessages } from "./workload.js";

const rounds = Number(process.argv[2] ?? 5);
const messages = workloadMessages(1000);
const message = (index: number) => messages[index % messages.length] as { role: "user"; text: string };
const store = await openStore(`file://${temporaryDirectory()}`);
try {
  process.stdout.write(`${JSON.stringify(await aggregateTimes(store, message, rounds))}\n`);
} finally {
  await store.close();
}
