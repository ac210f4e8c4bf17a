import { setTimeout as sleep } from "node:timers/promises";
import { messageText, openStore, type ThreadRunner, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createThreadService,
  ThreadProcessingError,
  type ThreadService,
  ThreadTimeoutError,
} from "../src/index.js";
import { heldRunner, lastUserText, scriptedRunner, slowRunner } from "./fake-runners.js";

let store: ThreadStore;
let service: ThreadService | undefined;

beforeEach(async () => {
  store = await openStore("memory:");
});
afterEach(async () => {
  await service?.close({ abort: true });
  service = undefined;
});

describe("per-thread queues", () => {
  it("processes a thread's messages one at a time, in the order they were sent", async () => {
    let active = 0;
    let overlap = false;
    const runner: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      async run(thread) {
        active++;
        if (active > 1) overlap = true;
        const text = await lastUserText(thread);
        // Later messages finish faster: out-of-order processing would show at once.
        await sleep(10 - Number(text));
        active--;
        return thread.append({ role: "assistant", text: `re ${text}` });
      },
    };
    service = createThreadService({ store, runner, concurrency: 4 });
    const { threadId } = await service.createThread();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) => service?.send(threadId, `${index}`)),
    );
    expect(overlap).toBe(false);
    expect(results.map((result) => result && messageText(result.messages[0] as never))).toEqual(
      Array.from({ length: 8 }, (_, index) => `re ${index}`),
    );
    const texts = (await (await store.get(threadId)).messages()).map(messageText);
    expect(texts).toEqual(Array.from({ length: 8 }, (_, index) => [`${index}`, `re ${index}`]).flat());
  });

  it("runs different threads concurrently, never more than `concurrency` at once", async () => {
    const runner = heldRunner();
    service = createThreadService({ store, runner, concurrency: 3 });
    const ids = [];
    for (let index = 0; index < 7; index++) ids.push((await service.createThread()).threadId);
    const sends = ids.map((threadId) => service?.send(threadId, "go"));
    for (let released = 0; released < ids.length; released++) {
      const call = await runner.nextCall();
      await sleep(5); // gives a fourth run the chance to start, were the limit broken
      expect(runner.active()).toBeLessThanOrEqual(3);
      call.release();
    }
    await Promise.all(sends);
    expect(runner.maxActive()).toBe(3);
  });

  it("does not let a slow thread hold up the others", async () => {
    const runner = heldRunner();
    service = createThreadService({ store, runner, concurrency: 2 });
    const slow = (await service.createThread()).threadId;
    const fast = (await service.createThread()).threadId;
    const slowSend = service.send(slow, "slow");
    const slowCall = await runner.nextCall();
    const fastSends = [1, 2, 3].map((index) => service?.send(fast, `fast ${index}`));
    for (let index = 0; index < 3; index++) (await runner.nextCall()).release();
    const fastResults = await Promise.all(fastSends);
    expect(fastResults).toHaveLength(3);
    expect(slowCall.signal?.aborted).toBe(false);
    slowCall.release();
    await slowSend;
  });

  it("aborts a run that exceeds maxTime with ThreadTimeoutError, and the thread goes on", async () => {
    // "slow" would outlast the test's own timeout: only maxTime can end it.
    const runner = slowRunner((text) => (text === "slow" ? 600_000 : 0));
    service = createThreadService({ store, runner });
    const { threadId } = await service.createThread({ config: { maxTime: 50 } });
    const error = await service.send(threadId, "slow").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ThreadTimeoutError);
    expect(error).toBeInstanceOf(ThreadProcessingError);
    expect((error as ThreadTimeoutError).maxTime).toBe(50);
    expect((error as Error).message).toMatch(/^\[thread-service\] /);
    expect(await service.status(threadId)).toBe("failed");
    const next = await service.send(threadId, "quick");
    expect(messageText(next.messages[0] as never)).toBe("done: quick");
    expect(await service.status(threadId)).toBe("idle");
  });

  it("stops waiting for a runner that ignores its signal, and refuses its late writes", async () => {
    let lateWrite: unknown;
    let lateWriteSettled!: () => void;
    const settled = new Promise<void>((resolve) => {
      lateWriteSettled = resolve;
    });
    const runner: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      async run(thread) {
        await sleep(150);
        lateWrite = await thread
          .append({ role: "assistant", text: "too late" })
          .catch((error: unknown) => error);
        lateWriteSettled();
        return [];
      },
    };
    service = createThreadService({ store, runner });
    const { threadId } = await service.createThread({ config: { maxTime: 30 } });
    await expect(service.send(threadId, "hi")).rejects.toBeInstanceOf(ThreadTimeoutError);
    // Waits for the late write itself, not a fixed time a loaded machine may overrun.
    await settled;
    expect(lateWrite).toBeInstanceOf(ThreadTimeoutError);
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual(["hi"]);
  });

  it("wraps a runner's own error in ThreadProcessingError with the cause", async () => {
    const cause = new Error("model unavailable");
    const runner: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      run: async () => {
        throw cause;
      },
    };
    service = createThreadService({ store, runner });
    const { threadId } = await service.createThread();
    const error = (await service
      .send(threadId, "hi")
      .catch((caught: unknown) => caught)) as ThreadProcessingError;
    expect(error).toBeInstanceOf(ThreadProcessingError);
    // The cause is the runner's error as a scrubbed copy (same class and message), never a credential's carrier.
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as Error).message).toBe(cause.message);
    expect(error.threadId).toBe(threadId);
    expect((await service.info(threadId)).lastFailure).toMatchObject({ error: "ThreadProcessingError" });
  });

  it("passes the frozen configuration (without maxTime) and a signal to the runner", async () => {
    const runner = scriptedRunner();
    service = createThreadService({ store, runner });
    const config = { systemPrompt: "Be brief.", model: "m-1", temperature: 0.2, maxTime: 5000 };
    const { threadId } = await service.createThread({ config });
    await service.send(threadId, { role: "user", text: "hello" });
    const seen = runner.seen[0];
    expect(seen?.options.config).toEqual({ systemPrompt: "Be brief.", model: "m-1", temperature: 0.2 });
    expect(Object.isFrozen(seen?.options.config)).toBe(true);
    expect(seen?.options.signal).toBeInstanceOf(AbortSignal);
  });

  it("fails sends to unknown threads with ThreadNotFoundError", async () => {
    service = createThreadService({ store, runner: scriptedRunner() });
    await expect(service.send("nope", "hi")).rejects.toMatchObject({ name: "ThreadNotFoundError" });
  });
});
