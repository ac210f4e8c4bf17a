import { randomBytes } from "node:crypto";
import {
  messageText,
  openStore,
  type RunOptions,
  type Thread,
  type ThreadRunner,
  type ThreadStore,
} from "@skein/thread-core";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createThreadService, type ThreadService } from "../src/index.js";

const redis = inject("redis");

/**
 * A message that follows another under one lease starts from the thread object the previous run left. A
 * thread deleted and made again under the same id in between restarts its revisions, so the kept object's
 * fence can match the new thread's number: the store refuses it as replaced (ThreadReplacedError), and the
 * message is read afresh with the new thread's configuration.
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

  it("never runs a thread deleted and created again with the same id with the old thread's configuration", async () => {
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
