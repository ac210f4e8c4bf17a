import { openStore, type ThreadStore } from "@skein/thread-core";
import { beforeEach, describe, expect, it } from "vitest";
import { createThreadService, type ServiceEvent, ThreadProcessingError } from "../src/index.js";
import { heldRunner, scriptedRunner } from "./fake-runners.js";

let store: ThreadStore;

beforeEach(async () => {
  store = await openStore("memory:");
});

function summary(event: ServiceEvent): string {
  return event.type === "status" ? `status:${event.status}` : event.type;
}

describe("events", () => {
  it("stream status changes, completions and failures in order", async () => {
    const service = createThreadService({
      store,
      runner: scriptedRunner((text) => {
        if (text === "fail") throw new Error("no");
        return `re ${text}`;
      }),
    });
    const all = service.events();
    const { threadId } = await service.createThread();
    const completed = await service.send(threadId, "hi");
    await expect(service.send(threadId, "fail")).rejects.toBeInstanceOf(ThreadProcessingError);
    await service.pause(threadId);
    await service.resume(threadId);
    await service.kill(threadId);
    await service.close();

    const events: ServiceEvent[] = [];
    for await (const event of all) events.push(event);
    expect(events.map(summary)).toEqual([
      "status:idle",
      "status:running",
      "completed",
      "status:idle",
      "status:running",
      "failed",
      "status:failed",
      "status:paused",
      "status:failed",
      "status:killed",
    ]);
    const done = events[2];
    expect(done?.type === "completed" && done.messages).toEqual(completed.messages);
    expect(done?.type === "completed" && done.messageId).toBe(completed.input.id);
    expect(events.every((event) => event.threadId === threadId && typeof event.at === "string")).toBe(true);
  });

  it("can be limited to one thread and ended with a signal", async () => {
    const service = createThreadService({ store, runner: scriptedRunner() });
    const one = await service.createThread();
    const two = await service.createThread();
    const controller = new AbortController();
    const seen: ServiceEvent[] = [];
    const listening = (async () => {
      for await (const event of service.events(two.threadId, { signal: controller.signal })) {
        seen.push(event);
        if (event.type === "completed") controller.abort();
      }
    })();
    await service.send(one.threadId, "a");
    await service.send(two.threadId, "b");
    await listening;
    expect(seen.map(summary)).toEqual(["status:running", "completed"]);
    expect(seen.every((event) => event.threadId === two.threadId)).toBe(true);
  });

  it("end at once when the loop breaks", async () => {
    const service = createThreadService({ store, runner: scriptedRunner() });
    const { threadId } = await service.createThread();
    const sending = service.send(threadId, "x");
    for await (const event of service.events()) {
      expect(event.type).toBe("status");
      break;
    }
    await sending;
    await service.close();
  });

  it("report the status a thread is left in when it is paused or killed mid-run", async () => {
    const runner = heldRunner();
    const service = createThreadService({ store, runner });
    const paused = await service.createThread();
    const killed = await service.createThread();
    const events = service.events();

    const first = service.send(paused.threadId, "one");
    const firstCall = await runner.nextCall();
    await service.pause(paused.threadId);
    firstCall.release();
    await first;

    const second = service.send(killed.threadId, "two");
    await runner.nextCall();
    await service.kill(killed.threadId);
    await expect(second).rejects.toMatchObject({ name: "ThreadKilledError" });
    await service.close();

    const seen: string[] = [];
    for await (const event of events)
      seen.push(`${event.threadId === paused.threadId ? "A" : "B"} ${summary(event)}`);
    expect(seen).toEqual([
      "A status:running",
      "A status:paused",
      "A completed",
      "A status:paused",
      "B status:running",
      "B status:killed",
      "B failed",
      "B status:killed",
    ]);
  });
});
