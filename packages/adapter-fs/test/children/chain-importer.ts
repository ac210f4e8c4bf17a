// Imports exports of long chains of segments until it is killed. It prints "ready" once the store is open,
// then "imported <id>" after each import returns. Every chain is `length` segments of one message each, so
// an import spans several batches (IMPORT_BATCH) and a kill can land inside one or between two.
import { fsStore } from "../../src/index.js";
import { chainExport } from "../chain-export.js";

const [directory, length] = process.argv.slice(2) as [string, string];
const store = fsStore({ directory });
process.stdout.write("ready\n");
for (let index = 0; ; index++) {
  const id = `chain-${process.pid}-${index}`;
  await store.import(chainExport(id, Number(length)));
  process.stdout.write(`imported ${id}\n`);
}
