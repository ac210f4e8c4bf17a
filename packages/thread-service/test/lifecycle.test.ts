import { messageText, openStore, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createThreadService,
  NotAServiceThreadError,
  ServiceClosedError,
  ThreadKilledError,
  ThreadPausedError,
  type ThreadService,
} from "../src/index.js";
import { heldRunner, scriptedRunner } from "./fake-runners.js";

let store: ThreadStore;
const services: ThreadService[] = [];

function serviceOn(runner = scriptedRunner() as Parameters<typeof createThreadService>[0]["runner"]) {
  // Long enough that a loaded machine's timer delays cannot lapse a lease or its status (kills are noticed
  // within a third of it).
  const service = createThreadService({ store, runner, leaseMs: 3000 });
  services.push(service);
  return service;
}

beforeEach(async () => {
  store = await openStore("memory:");
});
afterEach(async () => {
  for (const service of services.splice(0)) await service.close({ abort: true });
});

describe("pause and resume", () => {
  it("lets the message in flight complete, fails new and waiting sends, and takes sends again after resume", async () => {
    const runner = heldRunner();
    const service = serviceOn(runner);
    const { threadId } = await service.createThread();
    const inFlight = service.send(threadId, "first");
    const call = await runner.nextCall();
    const waiting = service.send(threadId, "second");
    await new Promise((resolve) => setTimeout(resolve, 5));

    await service.pause(threadId);
    expect(await service.status(threadId)).toBe("paused");
    await expect(waiting).rejects.toBeInstanceOf(ThreadPausedError);
    await expect(service.send(threadId, "third")).rejects.toBeInstanceOf(ThreadPausedError);
    expect(call.signal?.aborted).toBe(false);
    call.release("answer");
    expect(messageText((await inFlight).messages[0] as never)).toBe("answer");
    expect(await service.status(threadId)).toBe("paused");

    await service.resume(threadId);
    expect(await service.status(threadId)).toBe("idle");
    const after = service.send(threadId, "fourth");
    (await runner.nextCall()).release();
    await after;
    const texts = (await (await store.get(threadId)).messages()).map(messageText);
    expect(texts).toEqual(["first", "answer", "fourth", "done: fourth"]);
  });

  it("pauses and resumes idempotently", async () => {
    const service = serviceOn();
    const { threadId } = await service.createThread();
    await service.pause(threadId);
    await service.pause(threadId);
    await service.resume(threadId);
    await service.resume(threadId);
    expect(await service.status(threadId)).toBe("idle");
  });
});

describe("kill", () => {
  it("aborts the run in flight through its signal and fails waiting and later sends", async () => {
    const runner = heldRunner();
    const service = serviceOn(runner);
    const { threadId } = await service.createThread();
    const inFlight = service.send(threadId, "first");
    const call = await runner.nextCall();
    const waiting = service.send(threadId, "second");
    await new Promise((resolve) => setTimeout(resolve, 5));

    await service.kill(threadId);
    await expect(inFlight).rejects.toBeInstanceOf(ThreadKilledError);
    await expect(waiting).rejects.toBeInstanceOf(ThreadKilledError);
    expect(call.signal?.aborted).toBe(true);
    expect(call.signal?.reason).toBeInstanceOf(ThreadKilledError);
    await call.finished;
    await expect(service.send(threadId, "third")).rejects.toBeInstanceOf(ThreadKilledError);
    await expect(service.resume(threadId)).rejects.toBeInstanceOf(ThreadKilledError);
    await expect(service.pause(threadId)).rejects.toBeInstanceOf(ThreadKilledError);
    expect(await service.status(threadId)).toBe("killed");
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual(["first"]);
  });

  it("is noticed by another instance running the thread, within a third of the lease", async () => {
    const runner = heldRunner();
    const worker = serviceOn(runner);
    const controller = serviceOn();
    const { threadId } = await worker.createThread();
    const inFlight = worker.send(threadId, "long");
    const call = await runner.nextCall();
    expect(await controller.status(threadId)).toBe("running");
    await controller.kill(threadId);
    await expect(inFlight).rejects.toBeInstanceOf(ThreadKilledError);
    expect(call.signal?.aborted).toBe(true);
  });
});

describe("status", () => {
  it("is persisted with the thread: a new service instance on the same store sees it", async () => {
    const failing = serviceOn({
      specificationVersion: "v1",
      supports: () => true,
      run: async () => {
        throw new Error("boom");
      },
    });
    const paused = (await failing.createThread()).threadId;
    const killed = (await failing.createThread()).threadId;
    const failed = (await failing.createThread()).threadId;
    const idle = (await failing.createThread()).threadId;
    await failing.pause(paused);
    await failing.kill(killed);
    await expect(failing.send(failed, "hi")).rejects.toThrow(/boom/);
    await failing.close();

    const fresh = serviceOn();
    expect(await fresh.status(paused)).toBe("paused");
    expect(await fresh.status(killed)).toBe("killed");
    expect(await fresh.status(failed)).toBe("failed");
    expect(await fresh.status(idle)).toBe("idle");
    await expect(fresh.send(paused, "x")).rejects.toBeInstanceOf(ThreadPausedError);
    await expect(fresh.send(killed, "x")).rejects.toBeInstanceOf(ThreadKilledError);
    await fresh.send(failed, "again");
    expect(await fresh.status(failed)).toBe("idle");
  });

  it("says running while a message is processed", async () => {
    const runner = heldRunner();
    const service = serviceOn(runner);
    const { threadId } = await service.createThread();
    const send = service.send(threadId, "hi");
    const call = await runner.nextCall();
    expect(await service.status(threadId)).toBe("running");
    call.release();
    await send;
    expect(await service.status(threadId)).toBe("idle");
  });

  it("refuses threads that a service did not create", async () => {
    const service = serviceOn();
    const plain = await store.create({ id: "plain" });
    await expect(service.status(plain.id)).rejects.toBeInstanceOf(NotAServiceThreadError);
    await expect(service.send(plain.id, "hi")).rejects.toBeInstanceOf(NotAServiceThreadError);
  });
});

describe("close", () => {
  it("fails waiting messages, lets the one in flight finish, and takes no more work", async () => {
    const runner = heldRunner();
    const service = serviceOn(runner);
    const { threadId } = await service.createThread();
    const inFlight = service.send(threadId, "first");
    const call = await runner.nextCall();
    const waiting = service.send(threadId, "second");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const closed = service.close();
    await expect(waiting).rejects.toBeInstanceOf(ServiceClosedError);
    call.release();
    await inFlight;
    await closed;
    await expect(service.send(threadId, "third")).rejects.toBeInstanceOf(ServiceClosedError);
  });
});
