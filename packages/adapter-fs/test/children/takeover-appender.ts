// A writer in its own process for the lock takeover tests. Prints "ready", then, until a line arrives on
// stdin, changes the thread again and again, printing one line per change once it has settled:
// "ack <ids>" (acknowledged), "lost <ids>" (LockLostError: nothing landed) or "unknown <ids>"
// (LockOutcomeUnknownError), then "done". Mode "append": batches of 1–3 messages; mode "update": metadata
// updates, named update-<n>, which rewrite the thread's record.
// With SKEIN_TEST_KEYS set (`keys-from-environment.ts`) the store is opened encrypted.
// Usage: takeover-appender.ts <directory> <thread id> <writer> <staleLockMs> <append|update>
import { fsStore, LockLostError, LockOutcomeUnknownError } from "../../src/index.js";
import { encryptionFromEnvironment } from "./keys-from-environment.js";

const [directory, threadId, writer, staleLockMs, mode] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const store = fsStore({
  directory,
  staleLockMs: Number(staleLockMs),
  lockTimeoutMs: 60_000,
  encryption: encryptionFromEnvironment(),
});
const thread = await store.get(threadId);
let stopping = false;
process.stdin.once("data", () => {
  stopping = true;
});
process.stdout.write("ready\n");
for (let index = 0; !stopping; index++) {
  const ids =
    mode === "update"
      ? [`update-${index}`]
      : Array.from({ length: 1 + (index % 3) }, (_, part) => `${writer}-${index}-${part}`);
  try {
    if (mode === "update") await thread.update({ metadata: { writer, last: ids[0] } });
    else
      await thread.append(
        ids.map((id) => ({ id, role: "user" as const, text: `${id} `.repeat(1 + (index % 40)) })),
      );
    process.stdout.write(`ack ${ids.join(" ")}\n`);
  } catch (error) {
    if (LockLostError.isInstance(error)) process.stdout.write(`lost ${ids.join(" ")}\n`);
    else if (LockOutcomeUnknownError.isInstance(error)) process.stdout.write(`unknown ${ids.join(" ")}\n`);
    else throw error;
  }
}
await store.close();
process.stdout.write("done\n");
process.stdin.destroy();
