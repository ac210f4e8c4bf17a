// An appender that stops itself (SIGSTOP) right after an append returns, in the same turn of the event loop,
// while its store keeps the thread's lock for a next append; once continued, it appends again, closes its
// store and prints "done".
import { fsStore } from "../../src/index.js";

const [directory, threadId] = process.argv.slice(2) as [string, string];
// Its lock goes stale only after a minute: a waiter that got it sooner took it from the kept lock's mark.
const store = fsStore({ directory, staleLockMs: 60_000, lockTimeoutMs: 120_000 });
const thread = await store.get(threadId);
await thread.append({ id: "child-1", role: "user", text: "before the stop" });
process.stdout.write("stopping\n");
process.kill(process.pid, "SIGSTOP");
await thread.append({ id: "child-2", role: "user", text: "after the stop" });
await store.close();
process.stdout.write("done\n");
