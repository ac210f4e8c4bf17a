import { messageText, openStore, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createThreadService,
  ThreadKilledError,
  ThreadLockedError,
  type ThreadService,
} from "../src/index.js";
import { heldRunner, scriptedRunner } from "./fake-runners.js";

let store: ThreadStore;
let service: ThreadService;

beforeEach(async () => {
  store = await openStore("memory:");
});
afterEach(async () => {
  await service.close({ abort: true });
});

const texts = async (threadId: string) => (await (await store.get(threadId)).messages()).map(messageText);

describe("branch", () => {
  it("copies the configuration and attachments, forks the history and locks the parent", async () => {
    service = createThreadService({ store, runner: scriptedRunner() });
    const config = { systemPrompt: "You plan trips.", model: "m-2", maxTime: 10_000 };
    const { threadId } = await service.createThread({
      config,
      initialMessages: [{ role: "system", text: "hi" }],
    });
    await service.attach(threadId, { fileId: "file-1", name: "map.pdf" });
    await service.send(threadId, "Lisbon?");

    const branch = await service.branch(threadId);
    expect(branch.threadId).not.toBe(threadId);
    const info = await service.info(branch.threadId);
    expect(info.config).toEqual(config);
    expect(info.branchedFrom).toBe(threadId);
    expect(info.status).toBe("idle");
    expect(info.attachments.map((attachment) => attachment.fileId)).toEqual(["file-1"]);
    expect(await texts(branch.threadId)).toEqual(["hi", "Lisbon?", "echo: Lisbon?"]);

    const locked = await service.send(threadId, "more").catch((error: unknown) => error);
    expect(locked).toBeInstanceOf(ThreadLockedError);
    expect((locked as ThreadLockedError).branchId).toBe(branch.threadId);
    await expect(service.attach(threadId, { fileId: "file-2" })).rejects.toBeInstanceOf(ThreadLockedError);
    expect((await service.info(threadId)).branches).toEqual([branch.threadId]);

    await service.send(branch.threadId, "Porto?");
    expect(await texts(branch.threadId)).toEqual([
      "hi",
      "Lisbon?",
      "echo: Lisbon?",
      "Porto?",
      "echo: Porto?",
    ]);
    expect(await texts(threadId)).toEqual(["hi", "Lisbon?", "echo: Lisbon?"]);
  });

  it("forks after the messages sent before it, never in the middle of a run", async () => {
    const runner = heldRunner();
    service = createThreadService({ store, runner });
    const { threadId } = await service.createThread();
    const first = service.send(threadId, "one");
    const call = await runner.nextCall();
    const branching = service.branch(threadId, { id: "branch-a" });
    const late = service.send(threadId, "two");
    call.release();
    await first;
    expect(await branching).toEqual({ threadId: "branch-a" });
    await expect(late).rejects.toBeInstanceOf(ThreadLockedError);
    expect(await texts("branch-a")).toEqual(["one", "done: one"]);
  });

  it("can fork at an earlier message", async () => {
    service = createThreadService({ store, runner: scriptedRunner() });
    const { threadId } = await service.createThread();
    const first = await service.send(threadId, "one");
    await service.send(threadId, "two");
    const branch = await service.branch(threadId, { at: first.messages[0]?.id as string });
    expect(await texts(branch.threadId)).toEqual(["one", "echo: one"]);
  });

  it("refuses to branch a killed thread", async () => {
    service = createThreadService({ store, runner: scriptedRunner() });
    const { threadId } = await service.createThread();
    await service.kill(threadId);
    await expect(service.branch(threadId)).rejects.toBeInstanceOf(ThreadKilledError);
  });

  it("reports a branched parent as locked and keeps the lineage in info()", async () => {
    service = createThreadService({ store, runner: scriptedRunner() });
    const { threadId: root } = await service.createThread({ id: "root" });
    const statuses: string[] = [];
    const events = service.events(root);
    const child = await service.branch(root, { id: "child" });
    const grandchild = await service.branch(child.threadId, { id: "grandchild" });
    for await (const event of events) {
      if (event.type === "status") statuses.push(event.status);
      break;
    }
    expect(statuses).toEqual(["locked"]);

    const rootInfo = await service.info(root);
    expect(rootInfo.status).toBe("locked");
    expect(rootInfo.parentThreadId).toBeUndefined();
    expect(rootInfo.originatingThreadId).toBe("root");
    expect(await service.status(child.threadId)).toBe("locked");
    const grandchildInfo = await service.info(grandchild.threadId);
    expect(grandchildInfo.status).toBe("idle");
    expect(grandchildInfo.parentThreadId).toBe("child");
    expect(grandchildInfo.originatingThreadId).toBe("root");
    expect((await service.info(child.threadId)).originatingThreadId).toBe("root");
    // A locked parent stays locked when paused (its status says why it takes no message for good).
    await service.pause(root);
    expect(await service.status(root)).toBe("locked");
    await service.kill(root);
    expect(await service.status(root)).toBe("killed");
  });

  it("lets a locked parent be branched again", async () => {
    service = createThreadService({ store, runner: scriptedRunner() });
    const { threadId } = await service.createThread();
    const first = await service.branch(threadId);
    const second = await service.branch(threadId);
    expect((await service.info(threadId)).branches).toEqual([first.threadId, second.threadId]);
  });
});
