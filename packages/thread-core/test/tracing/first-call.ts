// Run by src/tracing/first-call.test.ts, with @opentelemetry/api installed or hidden: the first traced calls
// of a process, made before the API lookup has answered, behave as untraced calls do.
import { openStore, StoreClosedError, type Thread, tracedRunner } from "../../src/index.js";

// A run is the first traced call: the runner is called at once, not after the lookup.
let runnerCalled = false;
const running = tracedRunner({
  specificationVersion: "v1",
  supports: () => true,
  run: async () => {
    runnerCalled = true;
    return [];
  },
}).run({ id: "first-run" } as unknown as Thread);
const runnerCalledAtOnce = runnerCalled;
await running;

const [store, closing] = await Promise.all([openStore("memory:"), openStore("memory:")]);
const metadata = { note: "as given" };
const creating = store.create({ metadata });
// A caller's later change is not seen by a call already made.
metadata.note = "changed after the call";
const created = closing.create({ id: "x" });
const closed = closing.close();
const thread = await creating;
const outcome = await created.then(
  () => "created",
  (error: unknown) => (StoreClosedError.isInstance(error) ? "StoreClosedError" : String(error)),
);
await closed;
await store.close();
console.log(JSON.stringify({ runnerCalledAtOnce, note: thread.metadata.note, outcome }));
