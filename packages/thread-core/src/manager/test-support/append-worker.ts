// A process that appends `count` messages to one pair thread through file-backed callbacks. It prints
// `ready` once it holds the thread, starts when a line arrives on its standard input (so two workers
// overlap), and prints the id of each message once its save was acknowledged.
// Run with tsx: append-worker.ts <directory> <name> <count>
import { once } from "node:events";
import { createRegistry } from "../../create-registry.js";
import { createThreadManager } from "../thread-manager.js";
import { fileCallbacks } from "./file-callbacks.js";

const [directory, name, count] = process.argv.slice(2) as [string, string, string];
const manager = createThreadManager({ ...fileCallbacks(directory), registry: createRegistry() });
await manager.get("chat", "planner", "writer");
process.stdout.write("ready\n");
await once(process.stdin, "data");
for (let index = 0; index < Number(count); index++) {
  const thread = await manager.get("chat", "planner", "writer");
  const id = `${name}-${index}`;
  if (index % 2) {
    await manager.appendAndSave(thread, { id, role: "assistant", authorName: name, text: `${index}` });
  } else {
    await thread.append({ id, role: "assistant", authorName: name, text: `${index}` });
    await manager.save(thread);
  }
  process.stdout.write(`${id}\n`);
}
process.stdin.destroy();
