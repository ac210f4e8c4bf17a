import { messageText, openStore, type ThreadRunner, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createThreadService, type ThreadService } from "../src/index.js";
import { LEASE_THREAD_TYPE, leaseIdOf } from "../src/lease-document.js";
import { heldRunner, scriptedRunner } from "./fake-runners.js";

let store: ThreadStore;
let service: ThreadService | undefined;
/** Every `store.get` and `store.getState` the service made, by id. */
let reads: string[];

beforeEach(async () => {
  const inner = await openStore("memory:");
  reads = [];
  // The real memory store, with its reads noted: each one is a round trip on a server store.
  store = new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "get" && property !== "getState") return value.bind(target);
      return (id: string) => {
        reads.push(id);
        return value.call(target, id);
      };
    },
  });
});
afterEach(async () => {
  await service?.close({ abort: true });
  service = undefined;
});

const readsOf = (id: string) => reads.filter((read) => read === id).length;

describe("the reads a message costs", () => {
  it("admits messages sent together with one shared read, and reads the thread once for all their runs under one lease", async () => {
    const runner = heldRunner();
    service = createThreadService({ store, runner, pollMs: 2 });
    const { threadId } = await service.createThread();
    reads.length = 0;
    const sends = Array.from({ length: 10 }, (_, index) =>
      (service as ThreadService).send(threadId, `m${index}`),
    );
    for (let index = 0; index < 10; index++) (await runner.nextCall()).release();
    const results = await Promise.all(sends);
    expect(results.map((result) => messageText(result.input))).toEqual(
      Array.from({ length: 10 }, (_, index) => `m${index}`),
    );
    // One read admits the ten and one more comes before the first run, under the lease; each later run
    // starts from the thread as the run before it left it (nobody else wrote it meanwhile).
    expect(readsOf(threadId)).toBe(2);
  });

  it("reads the thread afresh when someone wrote it after the previous run, and refuses what that forbids", async () => {
    const other = createThreadService({ store, runner: scriptedRunner(), pollMs: 2 });
    const runner: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      async run(thread) {
        const answer = await thread.append({ role: "assistant", text: "done" });
        // Another instance pauses the thread after this run's last write, before the next message runs.
        await other.pause(thread.id);
        return answer;
      },
    };
    service = createThreadService({ store, runner, pollMs: 2 });
    const { threadId } = await service.createThread();
    const first = service.send(threadId, "one");
    const second = service.send(threadId, "two");
    await first;
    await expect(second).rejects.toMatchObject({ name: "ThreadPausedError" });
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual(["one", "done"]);
    await other.close();
  });

  it("reads again for a send made after the shared read was sent", async () => {
    service = createThreadService({ store, runner: scriptedRunner(), pollMs: 2 });
    const { threadId } = await service.createThread();
    const other = createThreadService({ store, runner: scriptedRunner(), pollMs: 2 });
    const first = service.send(threadId, "before");
    // Paused by another instance once the first admission read is out: a later send must see the pause.
    await other.pause(threadId);
    await expect(service.send(threadId, "after")).rejects.toMatchObject({ name: "ThreadPausedError" });
    await first.catch(() => {});
    await other.close();
  });

  it("takes a lease it released itself again without reading it first", async () => {
    service = createThreadService({ store, runner: scriptedRunner(), pollMs: 2 });
    const { threadId } = await service.createThread();
    const lease = leaseIdOf(threadId);
    await service.send(threadId, "one");
    await service.whenIdle();
    reads.length = 0;
    await service.send(threadId, "two");
    await service.whenIdle();
    await service.send(threadId, "three");
    await service.whenIdle();
    expect(readsOf(lease)).toBe(0);
    const state = await store.getState(lease);
    // Taken and freed three times: revisions 1 to 6, free at the end.
    expect(state).toMatchObject({ $type: LEASE_THREAD_TYPE, holder: null, revision: 6 });
  });

  it("reads the lease when another instance wrote it since this one freed it, and still takes it", async () => {
    service = createThreadService({ store, runner: scriptedRunner((text) => `a: ${text}`), pollMs: 2 });
    const other = createThreadService({ store, runner: scriptedRunner((text) => `b: ${text}`), pollMs: 2 });
    const { threadId } = await service.createThread();
    await service.send(threadId, "one");
    await service.whenIdle();
    await other.send(threadId, "two");
    await other.whenIdle();
    reads.length = 0;
    await service.send(threadId, "three");
    expect(readsOf(leaseIdOf(threadId))).toBe(1);
    const texts = (await (await store.get(threadId)).messages()).map(messageText);
    expect(texts).toEqual(["one", "a: one", "two", "b: two", "three", "a: three"]);
    await other.close();
  });
});
