// The service driving remote threads with the real runners, through the real lease fence and run guard:
// a2aRunner against a real @a2a-js/sdk agent server, foundryRunner against the Foundry loopback emulator with
// the real Azure and OpenAI clients, and openaiRunner's own `supports` against the OpenAI emulator.
import { a2aAdapter, a2aRunner } from "@skein/adapter-a2a";
import type { FoundryAdapter, foundryRunner as FoundryRunner } from "@skein/adapter-foundry";
import { openaiRunner } from "@skein/adapter-openai";
import {
  ConcurrencyError,
  messageText,
  openStore,
  type Thread,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { runTarget } from "@skein/thread-core/driver";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FencedThread } from "../src/fenced-thread.js";
import { createThreadService, LeaseLostError } from "../src/index.js";
import { leaseDocumentType } from "../src/lease-document.js";
import { ThreadLeases } from "../src/thread-lease.js";

// Loaded by URL: these servers are other packages' test code, outside this package's TypeScript program.
interface AgentServer {
  agentUrl(name: "echo"): string;
  readonly requests: ReadonlyArray<{ method: string; url: string }>;
  close(): Promise<void>;
}
interface FoundryEmulator {
  adapter(): FoundryAdapter;
  readonly http: { requests: ReadonlyArray<{ method: string; path: string; body?: unknown }> };
  close(): Promise<void>;
}
interface OpenAIEmulator {
  url: string;
  apiKey: string;
  requestsTo(route: string): unknown[];
  close(): Promise<void>;
}
const load = async <T>(path: string): Promise<T> => (await import(new URL(path, import.meta.url).href)) as T;
const { startAgentServer } = await load<{ startAgentServer(): Promise<AgentServer> }>(
  "../../adapter-a2a/test/agent-server.ts",
);
const { startFoundryEmulator } = await load<{ startFoundryEmulator(): Promise<FoundryEmulator> }>(
  "../../adapter-foundry/test/emulator/foundry-emulator.ts",
);
// The runner from the same source the emulator's adapter is built from (the built package drops `node:` from
// its imports, which this package's test bundler does not resolve).
const { foundryRunner } = await load<{ foundryRunner: typeof FoundryRunner }>(
  "../../adapter-foundry/src/index.ts",
);
const { startEmulator } = await load<{ startEmulator(): Promise<OpenAIEmulator> }>(
  "../../adapter-openai/test/emulator/emulator.ts",
);

let agents: AgentServer;
let foundry: FoundryEmulator;
beforeAll(async () => {
  agents = await startAgentServer();
  foundry = await startFoundryEmulator();
});
afterAll(async () => {
  await agents.close();
  await foundry.close();
});

describe("thread-service with a2aRunner", () => {
  it("serves an a2a thread it accepted: the agent's reply comes back from send", async () => {
    const store = await openStore("memory:", { adapters: [a2aAdapter()] });
    const agentUrl = agents.agentUrl("echo");
    const service = createThreadService({ store, runner: a2aRunner({ agentUrl }) });
    const { threadId } = await service.createThread({ type: "a2a", typeOptions: { agentUrl } });
    const result = await service.send(threadId, "hello");
    expect(result.messages.map(messageText)).toContain("echo: hello");
    const second = await service.send(threadId, "again");
    expect(second.messages.map(messageText)).toContain("echo: again");
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual([
      "hello",
      ...result.messages.map(messageText),
      "again",
      ...second.messages.map(messageText),
    ]);
    await service.close();
    await store.close();
  });

  it("refuses at send, before the agent is asked again, attachments it would never send", async () => {
    const store = await openStore("memory:", { adapters: [a2aAdapter()] });
    const service = createThreadService({ store, runner: a2aRunner({ agentUrl: agents.agentUrl("echo") }) });
    const { threadId } = await service.createThread();
    await service.attach(threadId, { fileId: "file-1", name: "report.pdf" });
    const before = agents.requests.length;
    const error = await service.send(threadId, "summarise it").catch((caught: unknown) => caught as Error);
    expect(UnsupportedOperationError.isInstance((error as Error & { cause?: unknown }).cause)).toBe(true);
    expect((error as Error).message).toMatch(/messages for one run by a2aRunner/);
    expect(agents.requests.length).toBe(before);
    await service.close();
    await store.close();
  });
});

describe("thread-service with foundryRunner", () => {
  it("serves a foundry.conversation it accepted, through the lease fence and no adapter of its own", async () => {
    const store = await openStore("memory:", { adapters: [foundry.adapter()] });
    const service = createThreadService({ store, runner: foundryRunner() });
    const { threadId } = await service.createThread({
      type: "foundry.conversation",
      typeOptions: { agentName: "echo" },
    });
    const result = await service.send(threadId, "hello");
    expect(result.messages.map(messageText)).toEqual(["echo: hello"]);
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual(["hello", "echo: hello"]);
    await service.close();
    await store.close();
  });

  it("refuses a call through the fence's inner thread once the lease is lost, before the agent runs", async () => {
    const store = await openStore("memory:", { adapters: [foundry.adapter()] });
    store.registry.ensure(leaseDocumentType);
    const thread = await store.create("foundry.conversation", { agentName: "echo" });
    const lease = await new ThreadLeases(store, "instance-1", 60_000).tryAcquire(thread.id);
    if (!lease) throw new Error("the lease of a new thread is free");
    const fenced = new FencedThread(thread, lease, "message-1");
    const target = runTarget(fenced) as Thread & { runAgent(): Promise<unknown> };
    expect(target.type).toBe("foundry.conversation");
    lease.markLost();
    const runs = foundry.http.requests.length;
    await expect(target.runAgent()).rejects.toBeInstanceOf(LeaseLostError);
    await expect(target.append({ role: "user", text: "late" })).rejects.toBeInstanceOf(LeaseLostError);
    expect(foundry.http.requests.length).toBe(runs);
    await lease.release();
    await store.close();
  });
});

describe("the lease fence's inner thread", () => {
  it("guards a workflow's main sub-thread too, and sends its writes through the fence", async () => {
    const store = await openStore("memory:");
    store.registry.ensure(leaseDocumentType);
    const workflow = await store.create("workflow", { threads: ["main"] });
    const lease = await new ThreadLeases(store, "instance-1", 60_000).tryAcquire(workflow.id);
    if (!lease) throw new Error("the lease of a new thread is free");
    const fenced = new FencedThread(workflow, lease, "message-1");
    const main = runTarget(fenced) as Thread;
    expect(main.type).toBe("memory");
    await main.append({ role: "user", text: "while held" });
    // A write through the inner workflow is the fence's own: it carries the fence's revision.
    const inner = (fenced as unknown as { inner: Thread }).inner;
    await inner.append({ role: "user", text: "through the fence" });
    // Moves main's revision, which its appends are fenced at, under the fence.
    await (workflow as Thread & { thread(key: string): Thread })
      .thread("main")
      .update({ metadata: { by: "someone else" } });
    await inner.append({ role: "user", text: "after a retry" }); // the fence confirms its lease and retries
    // A stale ifRevision of the caller's own is judged by the fence, after it confirmed its lease.
    const stale = await inner
      .append({ role: "user", text: "stale" }, { ifRevision: 0 })
      .catch((error) => error);
    expect(ConcurrencyError.isInstance(stale)).toBe(true);
    expect((stale as Error).message).toMatch(/^\[thread-service\]/);
    lease.markLost();
    await expect(main.messages()).rejects.toBeInstanceOf(LeaseLostError);
    await expect(inner.append({ role: "user", text: "late" })).rejects.toBeInstanceOf(LeaseLostError);
    expect((await (await store.get(workflow.id)).messages()).map(messageText)).toEqual([
      "while held",
      "through the fence",
      "after a retry",
    ]);
    await lease.release();
    await store.close();
  });
});

describe("thread-service with openaiRunner", () => {
  it("is refused an a2a thread at createThread by openaiRunner's own supports, with no request", async () => {
    const emulator = await startEmulator();
    const client = new OpenAI({ apiKey: emulator.apiKey, baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    const store = await openStore("memory:", { adapters: [a2aAdapter()] });
    const service = createThreadService({ store, runner: openaiRunner({ client, model: "gpt-test" }) });
    const error = await service
      .createThread({ type: "a2a", typeOptions: { agentUrl: agents.agentUrl("echo") } })
      .catch((caught: unknown) => caught);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect((await store.list()).items).toEqual([]);
    expect(emulator.requestsTo("responses.create")).toEqual([]);
    await service.close();
    await store.close();
    await emulator.close();
  });
});
