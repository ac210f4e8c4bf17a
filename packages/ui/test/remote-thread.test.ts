// A remote thread read through its adapter: the real `openai` client against the loopback emulator that
// @skein/adapter-openai's own tests use.
import type { Thread, WorkflowThread } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversationWith, type Harness, startHarness } from "../../adapter-openai/test/harness.js";
import type { MessagePage, ThreadInfo } from "../src/index.js";
import { startUi, type UiServer } from "../src/index.js";

describe("a remote thread in the ui", () => {
  let harness: Harness;
  let ui: UiServer;
  let conversation: Thread;

  beforeAll(async () => {
    harness = await startHarness();
    conversation = await conversationWith(harness, 5);
    const workflow = (await harness.store.create("workflow", {
      id: "flow",
      threads: ["main"],
    })) as WorkflowThread;
    await workflow.addThread("remote", { type: "openai.conversation" });
    ui = await startUi({ store: harness.store });
  });
  afterAll(async () => {
    await ui?.close();
    await harness?.close();
  });

  const get = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${ui.port}${path}`, {
      headers: { "x-skein-token": ui.token },
    });
    return { status: response.status, body: await response.json() };
  };

  it("reads its messages through the adapter and says it has no past to show", async () => {
    const info = (await get(`/api/thread?id=${conversation.id}`)).body as ThreadInfo;
    expect(info).toMatchObject({
      type: "openai.conversation",
      length: null,
      revision: null,
      checkpoints: [],
    });
    expect(info.capabilities.timeTravel).toBe(false);
    expect(info.signature).toMatch(/^remote:/);
    const page = (await get(`/api/messages?id=${conversation.id}&limit=2`)).body as MessagePage;
    expect(page.length).toBe(5);
    expect(page.from).toBe(3);
    expect(page.messages.map((message) => message.contents[0])).toEqual([
      expect.objectContaining({ text: "message 3" }),
      expect.objectContaining({ text: "message 4" }),
    ]);
    const graph = await get(`/api/graph?id=${conversation.id}`);
    expect(graph.status).toBe(501);
    expect(graph.body.error.message).toContain("openai.conversation thread keeps no log of segments here");
  });

  it("lists it without reading it whole, and shows a workflow's remote sub-thread with its capabilities", async () => {
    const before = harness.emulator.requests.length;
    const listed = (await get("/api/threads")).body;
    expect(listed.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: conversation.id, messageCount: null })]),
    );
    expect(harness.emulator.requests.length).toBe(before);
    const flow = (await get("/api/thread?id=flow")).body as ThreadInfo;
    expect(flow.workflow?.threads).toEqual([
      expect.objectContaining({ key: "main", readable: true }),
      expect.objectContaining({
        key: "remote",
        type: "openai.conversation",
        readable: true,
        length: null,
        capabilities: expect.objectContaining({ timeTravel: false }),
      }),
    ]);
  });
});
