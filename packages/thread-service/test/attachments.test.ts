import { openStore, type ThreadStore } from "@skein/thread-core";
import { beforeEach, describe, expect, it } from "vitest";
import { createThreadService, ThreadKilledError } from "../src/index.js";
import { scriptedRunner } from "./fake-runners.js";

let store: ThreadStore;

beforeEach(async () => {
  store = await openStore("memory:");
});

describe("attachments", () => {
  it("are attached, listed and removed per thread, and persist with its state", async () => {
    const service = createThreadService({ store, runner: scriptedRunner() });
    const { threadId } = await service.createThread();
    const other = await service.createThread();
    await service.attach(threadId, { fileId: "file-a", name: "a.pdf", mediaType: "application/pdf" });
    await service.attach(threadId, { fileId: "file-b" });
    const replaced = await service.attach(threadId, { fileId: "file-a", name: "a-v2.pdf" });
    expect(replaced.map((attachment) => [attachment.fileId, attachment.name])).toEqual([
      ["file-b", undefined],
      ["file-a", "a-v2.pdf"],
    ]);
    expect(await service.attachments(other.threadId)).toEqual([]);

    const fresh = createThreadService({ store, runner: scriptedRunner() });
    expect((await fresh.attachments(threadId)).map((attachment) => attachment.fileId)).toEqual([
      "file-b",
      "file-a",
    ]);
    expect(await fresh.detach(threadId, "file-b")).toHaveLength(1);
    expect(await fresh.detach(threadId, "missing")).toHaveLength(1);
    expect((await service.attachments(threadId))[0]).toMatchObject({
      fileId: "file-a",
      attachedAt: expect.any(String),
    });
  });

  it("are shown to the runner as file contents before the new input, without being stored as messages", async () => {
    const runner = scriptedRunner();
    const service = createThreadService({ store, runner });
    const { threadId } = await service.createThread();
    await service.attach(threadId, { fileId: "file-9", name: "notes.txt" });
    await service.send(threadId, "summarize");
    const view = runner.seen[0]?.view ?? [];
    expect(view.map((message) => message.role)).toEqual(["user", "user"]);
    expect(view[0]?.contents).toEqual([{ type: "file", fileId: "file-9", name: "notes.txt" }]);
    expect(
      (await (await store.get(threadId)).messages()).flatMap((message) =>
        message.contents.map((c) => c.type),
      ),
    ).toEqual(["text", "text"]);
  });

  it("are checked, and frozen once the thread is killed", async () => {
    const service = createThreadService({ store, runner: scriptedRunner() });
    const { threadId } = await service.createThread();
    await expect(service.attach(threadId, { fileId: "" })).rejects.toThrow(TypeError);
    await service.kill(threadId);
    await expect(service.attach(threadId, { fileId: "f" })).rejects.toBeInstanceOf(ThreadKilledError);
  });
});
