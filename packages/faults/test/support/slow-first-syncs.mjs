// Preloaded into a child (NODE_OPTIONS=--import) by a test: the first SLOW_SYNCS file syncs of the process
// (FileHandle sync and datasync, which the fs store's commits make) each take SLOW_SYNC_MS longer, as on a
// disk shared with many test processes that fsync. Later syncs run at the disk's own speed.
import { open } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

let slow = Number(process.env.SLOW_SYNCS ?? 0);
const delay = Number(process.env.SLOW_SYNC_MS ?? 0);
const handle = await open(process.execPath, "r");
const prototype = Object.getPrototypeOf(handle);
await handle.close();
for (const name of ["sync", "datasync"]) {
  const original = prototype[name];
  prototype[name] = async function (...args) {
    if (slow > 0) {
      slow--;
      await sleep(delay);
    }
    return original.apply(this, args);
  };
}
