// A writer that forks, checkpoints, rolls back and appends until it is killed. It prints "ready" once the
// thread is open, then one line after each call returns: "fork <id>", "checkpoint",
// "rollback" or "append <id>".
import { fsStore } from "../../src/index.js";

const [directory, threadId, writer] = process.argv.slice(2) as [string, string, string];
const store = fsStore({ directory });
const thread = await store.get(threadId);
process.stdout.write("ready\n");
for (let index = 0; ; index++) {
  const step = index % 4;
  if (step === 0) {
    const id = `${writer}-fork-${index}`;
    await thread.fork({ id });
    process.stdout.write(`fork ${id}\n`);
  } else if (step === 1) {
    await thread.checkpoint(`${writer}-${index}`);
    process.stdout.write("checkpoint\n");
  } else if (step === 2) {
    await thread.rollback("start", { append: [{ id: `${writer}-${index}`, role: "user", text: "again" }] });
    process.stdout.write("rollback\n");
  } else {
    const id = `${writer}-append-${index}`;
    await thread.append({ id, role: "user", text: id });
    process.stdout.write(`append ${id}\n`);
  }
}
