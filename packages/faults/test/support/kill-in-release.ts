// Imported first by a child process: with SKEIN_FAULTS_KILL_AT_RELEASE="<n>:<before|after>" set, the child
// kills itself with SIGKILL at the n-th release of a thread's reference to a segment (the fs store's `rm` of
// `segments/<id>/refs/thread.<name>`), just before or just after it: inside a delete, after the thread's
// record was removed and before all of its segments were released, the window a crash leaves orphans in.
import { createRequire, syncBuiltinESMExports } from "node:module";

const wanted = process.env.SKEIN_FAULTS_KILL_AT_RELEASE;
if (wanted) {
  const [count, when] = wanted.split(":") as [string, "before" | "after"];
  const promises = createRequire(import.meta.url)("node:fs/promises") as typeof import("node:fs/promises");
  const remove = promises.rm;
  let seen = 0;
  promises.rm = async (path, options) => {
    const chosen = /[/\\]refs[/\\]thread\.[^/\\]+$/.test(String(path)) && ++seen === Number(count);
    if (chosen && when === "before") process.kill(process.pid, "SIGKILL");
    await remove(path, options);
    if (chosen && when === "after") process.kill(process.pid, "SIGKILL");
  };
  // The fs store imports `rm` from node:fs/promises as an ES module: its binding follows the patched export.
  syncBuiltinESMExports();
}
