import { messageText, openStore, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createThreadService, LEASE_THREAD_TYPE, leaseIdOf, type ThreadService } from "../src/index.js";
import { scriptedRunner } from "./fake-runners.js";

let store: ThreadStore;
let service: ThreadService | undefined;
/** Every `store.get` the service made, by id. */
let reads: string[];

beforeEach(async () => {
  const inner = await openStore("memory:");
  reads = [];
  // The real memory store, with its reads noted: each one is a round trip on a server store.
  store = new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "get") return value.bind(target);
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
  it("admits messages sent together to one thread with one shared read", async () => {
    service = createThreadService({ store, runner: scriptedRunner(), pollMs: 2 });
    const { threadId } = await service.createThread();
    reads.length = 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => (service as ThreadService).send(threadId, `m${index}`)),
    );
    expect(results.map((result) => messageText(result.input))).toEqual(
      Array.from({ length: 10 }, (_, index) => `m${index}`),
    );
    // One read admits the ten; each message is then read once more under the lease before it runs.
    expect(readsOf(threadId)).toBe(1 + 10);
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
    const state = (await store.get(lease)).toJSON() as {
      $type: string;
      holder: string | null;
      revision: number;
    };
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
