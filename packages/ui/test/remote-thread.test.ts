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
    const texts = (read: MessagePage) =>
      read.messages.map((message) => (message.contents[0] as { text: string }).text);
    expect(texts(page)).toEqual(["message 3", "message 4"]);
    expect(page.earlier).toBe(page.messages[0]?.id);
    const before = (await get(`/api/messages?id=${conversation.id}&limit=2&before=${page.earlier}`))
      .body as MessagePage;
    expect(texts(before)).toEqual(["message 1", "message 2"]);
    const first = (await get(`/api/messages?id=${conversation.id}&limit=2&before=${before.earlier}`))
      .body as MessagePage;
    expect(texts(first)).toEqual(["message 0"]);
    expect(first.earlier).toBeUndefined();
    const graph = await get(`/api/graph?id=${conversation.id}`);
    expect(graph.status).toBe(501);
    expect(graph.body.error.message).toContain("openai.conversation thread keeps no log of segments here");
  });

  it("reads one page of a long remote thread without reading it whole", async () => {
    const long = await conversationWith(harness, 250);
    const lists = () => harness.emulator.requestsTo("conversations.items.list").length;
    const before = lists();
    const page = (await get(`/api/messages?id=${long.id}&limit=20`)).body as MessagePage;
    expect(page.messages.map((message) => (message.contents[0] as { text: string }).text)).toEqual(
      Array.from({ length: 20 }, (_, index) => `message ${230 + index}`),
    );
    // One page of 21 read newest first; reading all 250 takes three requests of 100.
    expect(lists() - before).toBe(1);
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
