// Imports a chain of `length` segments, then exports it and reads its view, printing what each gave. Run it
// with a low limit of open files: reading many segments must not open a file per segment at once.
import { fsStore } from "../../src/index.js";
import { chainExport } from "../chain-export.js";

const [directory, length] = process.argv.slice(2) as [string, string];
const store = fsStore({ directory });
const thread = await store.import(chainExport("chain", Number(length)));
const exported = await store.export("chain");
const { segments } = exported as { segments?: unknown[] };
process.stdout.write(`exported ${segments?.length ?? 0} segments\n`);
process.stdout.write(`viewed ${(await thread.view()).length} messages\n`);
await store.close();
