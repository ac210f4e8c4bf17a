// Run by src/tracing/without-opentelemetry.test.ts in a process where @opentelemetry/api cannot be resolved.
import { openStore, withContextProviders } from "../../src/index.js";
import { LocalStore } from "../../src/local/local-store.js";
import { LogThread } from "../../src/local/log-thread.js";
import { UNTRACED_METHOD } from "../../src/tracing/trace-methods.js";
import { loadTracingApi } from "../../src/tracing/tracing-api.js";

const wrapped = () =>
  [LogThread.prototype.append, LocalStore.prototype.get].map((method) => UNTRACED_METHOD in method);

const before = wrapped();
const store = await openStore("memory:");
const thread = await store.create();
const [first, second] = await Promise.all([
  thread.append({ role: "user", text: "hello" }),
  thread.append({ role: "user", text: "again" }),
]);
const runner = withContextProviders(
  {
    specificationVersion: "v1",
    supports: () => true,
    run: (target) => target.append({ role: "assistant", text: "answer" }),
  },
  [],
);
const answer = await runner.run(thread);
const messages = await thread.messages();
// Calls never wait for the lookup; once it has answered, the methods are back as they were.
await loadTracingApi();
const after = wrapped();
await store.close();
console.log(
  JSON.stringify({
    before,
    after,
    appended: (first?.length ?? 0) + (second?.length ?? 0) + answer.length,
    messages: messages.length,
  }),
);
