import { randomBytes } from "node:crypto";
import {
  messageText,
  openStore,
  type RunOptions,
  type Thread,
  ThreadNotFoundError,
  type ThreadRunner,
  type ThreadStore,
} from "@skein/thread-core";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { createThreadService, type ServiceEvent, type ThreadService } from "../src/index.js";

const redis = inject("redis");

/**
 * A message that follows another under one lease starts from the thread object the previous run left.
 * What happens to the thread in between, by other writers, must not reach the next run.
 */
const stores: Array<[string, () => Promise<ThreadStore>]> = [
  ["memory", () => openStore("memory:")],
  [
    "redis",
    () => {
      if ("unavailable" in redis) throw new Error(redis.unavailable);
      return openStore(
        `${redis.url}${redis.url.includes("?") ? "&" : "?"}prefix=kept-${randomBytes(4).toString("hex")}`,
      );
    },
  ],
];

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
  cleanup = [];
});

/** Runs `between` after the first message's last write, while the second waits under the same lease. */
function runnerWithGap(between: (thread: Thread) => Promise<void>): ThreadRunner & { seen: RunOptions[] } {
  const seen: RunOptions[] = [];
  let calls = 0;
  return {
    specificationVersion: "v1",
    supports: () => true,
    seen,
    async run(thread, options = {}) {
      seen.push(options);
      const answer = await thread.append({ role: "assistant", text: `answer ${++calls}` });
      if (calls === 1) await between(thread);
      return answer;
    },
  };
}

describe.each(stores)("the next message under a held lease (%s)", (_name, open) => {
  async function setUp(between: (store: ThreadStore, threadId: string) => Promise<void>) {
    const store = await open();
    cleanup.push(() => store.close());
    const other = createThreadService({ store, runner: runnerWithGap(async () => {}), pollMs: 2 });
    cleanup.push(() => other.close({ abort: true }));
    let threadId = "";
    const runner = runnerWithGap(() => between(store, threadId));
    const service: ThreadService = createThreadService({ store, runner, pollMs: 2 });
    cleanup.push(() => service.close({ abort: true }));
    return { store, other, runner, service, setId: (id: string) => (threadId = id) };
  }

  it("emits one running status per message when the kept thread was written since", async () => {
    let service!: ThreadService;
    const setup = await setUp(async (store, threadId) => {
      await (await store.get(threadId)).update({
        metadata: { ...(await store.get(threadId)).metadata, touched: true },
      });
    });
    service = setup.service;
    const { threadId } = await service.createThread();
    setup.setId(threadId);
    const events: ServiceEvent[] = [];
    const controller = new AbortController();
    const listening = (async () => {
      for await (const event of service.events(threadId, { signal: controller.signal })) events.push(event);
    })().catch(() => {});
    const first = service.send(threadId, "one");
    const second = service.send(threadId, "two");
    await Promise.all([first, second]);
    await service.whenIdle();
    controller.abort();
    await listening;
    const running = events.filter((event) => event.type === "status" && event.status === "running");
    expect(running).toHaveLength(2);
    expect(events.filter((event) => event.type === "completed")).toHaveLength(2);
  });

  it("refuses the next message with ThreadLockedError when the thread was branched since", async () => {
    const setup = await setUp(async () => {});
    const { service } = setup;
    const { threadId } = await service.createThread();
    setup.setId(threadId);
    const first = service.send(threadId, "one");
    const branched = service.branch(threadId);
    const second = service.send(threadId, "two");
    await first;
    await branched;
    await expect(second).rejects.toMatchObject({ name: "ThreadLockedError" });
    expect(setup.runner.seen).toHaveLength(1);
  });

  it("emits no running status for a message refused because the thread was paused since", async () => {
    const setup = await setUp(async (_store, threadId) => {
      await setup.other.pause(threadId);
    });
    const { service } = setup;
    const { threadId } = await service.createThread();
    setup.setId(threadId);
    const events: ServiceEvent[] = [];
    const controller = new AbortController();
    const listening = (async () => {
      for await (const event of service.events(threadId, { signal: controller.signal })) events.push(event);
    })().catch(() => {});
    const first = service.send(threadId, "one");
    const second = service.send(threadId, "two");
    await first;
    await expect(second).rejects.toMatchObject({ name: "ThreadPausedError" });
    await service.whenIdle();
    controller.abort();
    await listening;
    const running = events.filter((event) => event.type === "status" && event.status === "running");
    expect(running).toHaveLength(1);
  });

  it("refuses the next message with ThreadNotFoundError when the thread was deleted since", async () => {
    // Without its own handling, the kept thread's refused append failed the send with ThreadProcessingError.
    const setup = await setUp(async (store, threadId) => {
      await store.delete(threadId);
    });
    const { service } = setup;
    const { threadId } = await service.createThread();
    setup.setId(threadId);
    const first = service.send(threadId, "one");
    const second = service.send(threadId, "two");
    await first;
    const error = await second.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(ThreadNotFoundError.isInstance(error)).toBe(true);
    expect(setup.runner.seen).toHaveLength(1);
  });

  it("emits no running status for a message whose kept thread was paused after the previous run's last read", async () => {
    const store = await open();
    cleanup.push(() => store.close());
    const other = createThreadService({ store, runner: runnerWithGap(async () => {}), pollMs: 2 });
    cleanup.push(() => other.close({ abort: true }));
    let armed = false;
    // The thread object the first run reads becomes the kept one; its last refresh (the status read after the
    // run) is followed at once by another instance's pause, before the next message starts from it.
    const watched = new Proxy(store, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property !== "get") return typeof value === "function" ? value.bind(target) : value;
        return async (id: string) => {
          const thread = (await value.call(target, id)) as Thread;
          const refresh = thread.refresh.bind(thread);
          thread.refresh = async () => {
            await refresh();
            if (armed) {
              armed = false;
              await other.pause(id);
            }
          };
          return thread;
        };
      },
    });
    const runner = runnerWithGap(async () => {
      armed = true;
    });
    const service = createThreadService({ store: watched, runner, pollMs: 2 });
    cleanup.push(() => service.close({ abort: true }));
    const { threadId } = await service.createThread();
    const events: ServiceEvent[] = [];
    const controller = new AbortController();
    const listening = (async () => {
      for await (const event of service.events(threadId, { signal: controller.signal })) events.push(event);
    })().catch(() => {});
    const first = service.send(threadId, "one");
    const second = service.send(threadId, "two");
    await first;
    await expect(second).rejects.toMatchObject({ name: "ThreadPausedError" });
    await service.whenIdle();
    controller.abort();
    await listening;
    expect(runner.seen).toHaveLength(1);
    expect(events.map((event) => (event.type === "status" ? event.status : event.type))).toEqual([
      "running",
      "completed",
      "idle",
      "failed",
    ]);
  });

  // A thread deleted and made again under the same id restarts its revisions, so the kept object's fence
  // can match the new thread's number: the store refuses it as replaced (ThreadReplacedError), and the
  // message is read afresh with the new thread's configuration.
  it("never runs a thread deleted and created again with the same id with the old thread's configuration", async () => {
    // Both threads are made in the same millisecond, as on a fast machine: creation times cannot tell them apart.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    cleanup.push(async () => vi.useRealTimers());
    const setup = await setUp(async (store, threadId) => {
      const before = (await store.get(threadId)).revision as number;
      await store.delete(threadId);
      await setup.other.createThread({ id: threadId, config: { model: "new-model" } });
      const recreated = await store.get(threadId);
      // Writes by its new owner bring the new thread to the revision the old one had.
      while ((recreated.revision as number) < before)
        await recreated.append({ role: "user", text: "filler" });
    });
    const { service, store } = setup;
    const { threadId } = await service.createThread({ config: { model: "old-model" } });
    setup.setId(threadId);
    const first = service.send(threadId, "one");
    const second = service.send(threadId, "two");
    await first;
    await second.catch(() => {});
    expect(setup.runner.seen.map((options) => options.config?.model)).not.toContain(undefined);
    const models = setup.runner.seen.map((options) => options.config?.model);
    expect(models[0]).toBe("old-model");
    if (models.length > 1) expect(models[1]).toBe("new-model");
    expect(messageText((await (await store.get(threadId)).messages()).at(-1) as never)).not.toBe("answer 2x");
  });
});
