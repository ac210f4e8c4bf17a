// An appender that leaves right after its append returns, its store not closed: with "exit", through
// `process.exit` at once; with "end", by running out of work. Prints "appended" first.
import { fsStore } from "../../src/index.js";

const [directory, threadId, leave] = process.argv.slice(2) as [string, string, "exit" | "end"];
const store = fsStore({ directory });
const thread = await store.get(threadId);
await thread.append({ role: "user", text: "one" });
await thread.append({ role: "user", text: "two" });
process.stdout.write("appended\n");
if (leave === "exit") process.exit(0);
