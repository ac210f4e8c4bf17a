// Appends to many threads of one store at once, as a server does: `threads` threads, `appends` messages each,
// all threads' appends in flight together. Prints the number of messages read back and how many files under
// the store's directory it held open at the end, or exits non-zero with the error (EMFILE when the process's
// open-file limit is too low for what the store holds open).
import { readdirSync, readlinkSync } from "node:fs";
import { fsStore } from "../../src/index.js";

const [directory, threads, appends] = process.argv.slice(2) as [string, string, string];
const store = fsStore({ directory });
const made = await Promise.all(Array.from({ length: Number(threads) }, () => store.create()));
await Promise.all(
  made.map(async (thread, writer) => {
    for (let index = 0; index < Number(appends); index++)
      await thread.append({ role: "user", text: `message ${index} from ${writer}` });
  }),
);
let count = 0;
for (const thread of made) count += (await thread.messages()).length;
// Closes of files let go run in the background: give them a moment.
await new Promise((resolve) => setTimeout(resolve, 200));
const open = readdirSync("/proc/self/fd").filter((descriptor) => {
  try {
    return readlinkSync(`/proc/self/fd/${descriptor}`).startsWith(`${directory}/segments/`); // the catalogue journal, one file, aside
  } catch {
    return false; // the descriptor readdir itself used, closed since
  }
}).length;
await store.close();
process.stdout.write(`${count}\n${open}\n`);
