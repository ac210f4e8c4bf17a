// A sweep in its own process, to be killed part way: prints "ready", then "deleted <n>" after each batch,
// then "done <n>". Usage: sweeper.ts <store url> <batch size>
// With SKEIN_FAULTS_KILL_AT_RELEASE set, it kills itself inside a delete (see kill-in-release.ts).
import "../support/kill-in-release.js";
import { openStore } from "@skein/thread-core";

const [url, batch] = process.argv.slice(2) as [string, string];
const store = await openStore(url);
process.stdout.write("ready\n");
const report = await store.sweep({
  batchSize: Number(batch),
  onProgress: (progress) => process.stdout.write(`deleted ${progress.deleted}\n`),
});
process.stdout.write(`done ${report.deleted}\n`);
await store.close();
