// An erasure in its own process, to be killed: prints "scanned" once the store was read, then "erased <n>"
// after each thread. Usage: erasing-child.ts <store url> <owner>
// With SKEIN_FAULTS_KILL_AT_RELEASE set, it kills itself inside a delete (see kill-in-release.ts).
import "../support/kill-in-release.js";
import { openStore } from "@skein/thread-core";

const [url, owner] = process.argv.slice(2) as [string, string];
const store = await openStore(url);
const report = await store.erase({
  owner,
  onProgress: (step) =>
    process.stdout.write(step.phase === "scanned" ? "scanned\n" : `erased ${step.erased}\n`),
});
process.stdout.write(`done ${report.threads}\n`);
await store.close();
