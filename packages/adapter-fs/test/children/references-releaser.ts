// A writer in its own process that stops (SIGSTOP) in the middle of releasing the store's references lock:
// right after it removed `references.lock` under `references.lock.break`, before it removes `.break` (this
// file wraps fs.unlinkSync, in this child only). Forks thread <thread id>, which takes the references lock.
// Prints "stopping", then, once continued, "ack" and "done".
// Usage: references-releaser.ts <directory> <thread id>
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";

const [directory, threadId] = process.argv.slice(2) as [string, string];
const referencesLock = join(directory, "references.lock");
const unlinkSync = fs.unlinkSync;
let stopped = false;
fs.unlinkSync = (path) => {
  unlinkSync(path);
  if (!stopped && String(path) === referencesLock) {
    stopped = true;
    process.stdout.write("stopping\n");
    process.kill(process.pid, "SIGSTOP");
  }
};
syncBuiltinESMExports();

const { fsStore } = await import("../../src/index.js");
const store = fsStore({ directory });
const fork = await (await store.get(threadId)).fork();
process.stdout.write(`ack ${fork.id}\n`);
await store.close();
process.stdout.write("done\n");
