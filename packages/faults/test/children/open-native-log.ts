// Opens or imports, in the store at <store url>, a state of that store's own type (fs, redis) that carries
// a log's fields, as a hand-edited export would, or opens a workflow holding one as its sub-thread; prints
// "settled <outcome>" once the call has settled.
// Usage: open-native-log.ts <store url> <open|import|open-workflow>
import { openStore, SkeinError } from "@skein/thread-core";

const [url, operation] = process.argv.slice(2) as [string, "open" | "import" | "open-workflow"];
const store = await openStore(url);
const createdAt = "2026-11-21T22:39:36.000Z";
const state = {
  $type: store.nativeType,
  $v: 1,
  id: "native-log",
  createdAt,
  revision: 2,
  end: { segment: "seg_a", offset: 0 },
  segments: [{ id: "seg_a", base: null, start: 0, createdAt, messages: [] }],
  events: [],
};
const workflow = {
  $type: "workflow",
  $v: 1,
  id: "workflow",
  createdAt,
  metadata: {},
  context: {},
  revision: 1,
  execution: { steps: [], current: [], next: [] },
  checkpoints: [],
  events: [],
  threads: { main: state },
};
let outcome: string;
try {
  if (operation === "open") await store.open(state);
  else if (operation === "import") await store.import(state);
  else await store.open(workflow);
  outcome = "ok";
} catch (error) {
  outcome = SkeinError.isInstance(error) ? (error as Error).name : `unexpected ${String(error)}`;
}
process.stdout.write(`settled ${outcome}\n`);
await store.close();
