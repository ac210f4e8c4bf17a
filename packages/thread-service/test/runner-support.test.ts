import {
  openStore,
  type ThreadRunner,
  type ThreadStore,
  UnsupportedOperationError,
  UnsupportedSpecificationError,
} from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createThreadService, type ThreadService } from "../src/index.js";
import { scriptedRunner } from "./fake-runners.js";

let store: ThreadStore;
let service: ThreadService;

beforeEach(async () => {
  store = await openStore("memory:");
});
afterEach(async () => {
  await service.close({ abort: true });
});

/** A runner that serves only the threads `accept` allows, and counts the runs it was asked for. */
function pickyRunner(accept: (threadId: string) => boolean) {
  const runner = scriptedRunner();
  return Object.assign(runner, { supports: (thread: { id: string }) => accept(thread.id) });
}

describe("runner.supports", () => {
  it("is asked at createThread: a thread the runner cannot serve is refused and nothing is created", async () => {
    const runner = pickyRunner(() => false);
    service = createThreadService({ store, runner });
    const error = await service
      .createThread({ id: "refused", initialMessages: [{ role: "user", text: "hi" }] })
      .catch((caught: unknown) => caught);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^\[thread-service\] .*nothing was created/);
    expect((await store.list()).items).toEqual([]);
    expect(runner.seen).toEqual([]);
  });

  it("is asked at branch: a refused branch makes nothing and leaves the parent unlocked", async () => {
    let serveParentOnly = false;
    const runner = pickyRunner((threadId) => !serveParentOnly || threadId === "parent");
    service = createThreadService({ store, runner });
    await service.createThread({ id: "parent" });
    await service.send("parent", "hello");
    serveParentOnly = true;

    const error = await service.branch("parent", { id: "child" }).catch((caught: unknown) => caught);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    await expect(store.get("child")).rejects.toThrow(/not found/);
    expect((await service.info("parent")).status).toBe("idle");
    expect((await service.info("parent")).branches).toEqual([]);
    await service.send("parent", "still mine");
    expect(runner.seen.map((seen) => seen.text)).toEqual(["hello", "still mine"]);
  });

  it("refuses to branch a thread the runner no longer serves, before forking it", async () => {
    let serving = true;
    const asked: string[] = [];
    service = createThreadService({
      store,
      runner: pickyRunner((threadId) => {
        asked.push(threadId);
        return serving;
      }),
    });
    await service.createThread({ id: "parent" });
    serving = false;
    asked.length = 0;
    await expect(service.branch("parent", { id: "child" })).rejects.toSatisfy((error: unknown) =>
      UnsupportedOperationError.isInstance(error),
    );
    // Only the parent was asked about: no fork was made to be asked about.
    expect(asked).toEqual(["parent"]);
    await expect(store.get("child")).rejects.toThrow(/not found/);
    expect((await service.info("parent")).branches).toEqual([]);
  });
});

describe("runner.specificationVersion", () => {
  it("is read when the service is made: a runner of another contract version is refused, typed", () => {
    const runner = { ...scriptedRunner(), specificationVersion: "v2" } as unknown as ThreadRunner;
    let error: unknown;
    try {
      createThreadService({ store, runner });
    } catch (caught) {
      error = caught;
    }
    expect(UnsupportedSpecificationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      contract: "runner given to the thread service",
      specificationVersion: "v2",
    });
    expect((error as Error).message).toMatch(/^\[thread-service\] .*supports specificationVersion "v1" only/);
    service = createThreadService({ store, runner: scriptedRunner() });
  });
});
