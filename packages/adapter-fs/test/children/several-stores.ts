// Opens `stores` stores in one process and touches 20 threads of each, one operation at a time, so that each
// store would keep its threads' segment files open idle. Prints how many files under `directory` the process
// held open before closing them, or exits non-zero with the error (EMFILE when the stores together keep more
// open than the process's open-file limit allows).
import { readdirSync, readlinkSync } from "node:fs";
import { fsStore } from "../../src/index.js";

const [directory, stores] = process.argv.slice(2) as [string, string];
const opened = [];
for (let index = 0; index < Number(stores); index++) {
  const store = fsStore({ directory: `${directory}/${index}` });
  opened.push(store);
  for (let thread = 0; thread < 20; thread++)
    await (await store.create()).append({ role: "user", text: "hi" });
}
// Closes of files let go run in the background: give them a moment.
await new Promise((resolve) => setTimeout(resolve, 200));
const open = readdirSync("/proc/self/fd").filter((descriptor) => {
  try {
    // Segment files (each store also keeps its catalogue journal open, one file, not counted here).
    const path = readlinkSync(`/proc/self/fd/${descriptor}`);
    return path.startsWith(directory) && path.includes("/segments/");
  } catch {
    return false; // the descriptor readdir itself used, closed since
  }
}).length;
await Promise.all(opened.map((store) => store.close()));
process.stdout.write(`${open}\n`);
