import {
  messageText,
  openStore,
  ThreadNotFoundError,
  type ThreadStore,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a2aAdapter } from "../src/index.js";
import { type AgentServer, startAgentServer } from "./agent-server.js";

let server: AgentServer;
let store: ThreadStore;

beforeAll(async () => {
  server = await startAgentServer();
  store = await openStore("memory:", { adapters: [a2aAdapter()] });
});
afterAll(async () => {
  await store.close();
  await server.close();
});

describe("ifRevision on delete (issue 18)", () => {
  it("an a2a thread refuses delete with ifRevision, deleting nothing: no store step can check it", async () => {
    const thread = await store.create("a2a", { agentUrl: server.agentUrl("echo") });
    await thread.append({ role: "user", text: "hi" });
    const error = await thread.delete({ ifRevision: thread.revision as number }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^\[adapter-a2a\] /);
    const kept = await store.get(thread.id);
    expect((await kept.messages()).map(messageText)).toEqual(["hi", "echo: hi", "HI"]);
    await thread.delete();
    const missing = await store.get(thread.id).catch((error: unknown) => error);
    expect(ThreadNotFoundError.isInstance(missing)).toBe(true);
  });
});
