// One delete in its own process, to be killed inside it: prints "deleted <true|false>".
// Usage: deleting-child.ts <store url> <thread id>
// With SKEIN_FAULTS_KILL_AT_RELEASE set, it kills itself inside the delete (see kill-in-release.ts).
import "../support/kill-in-release.js";
import { openStore } from "@skein/thread-core";

const [url, id] = process.argv.slice(2) as [string, string];
const store = await openStore(url);
process.stdout.write(`deleted ${await store.delete(id)}\n`);
await store.close();
