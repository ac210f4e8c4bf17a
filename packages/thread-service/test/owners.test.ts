import { InvalidListOptionsError, openStore, SkeinError, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createThreadService, type ThreadService } from "../src/index.js";
import { scriptedRunner } from "./fake-runners.js";

let store: ThreadStore;
let service: ThreadService;
const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

beforeEach(async () => {
  store = await openStore("memory:");
  service = createThreadService({ store, runner: scriptedRunner(), leaseMs: 3000 });
});
afterEach(() => service.close({ abort: true }));

describe("owners and titles", () => {
  it("createThread({ owner, title }) and listThreads: one owner's threads, most recently changed first", async () => {
    const trip = await service.createThread({
      id: "trip",
      owner: "u-7",
      title: "Trip",
      metadata: { agent: "planner" },
    });
    await pause();
    await service.createThread({ id: "taxes", owner: "u-7", title: "Taxes" });
    await service.createThread({ id: "theirs", owner: "u-8" });
    // A thread no service created is not one of the service's.
    await store.create({ id: "plain", owner: "u-7" });
    await pause();
    await service.send(trip.threadId, "three days");

    const page = await service.listThreads({ owner: "u-7" });
    expect(page.threads.map((thread) => [thread.threadId, thread.title])).toEqual([
      ["trip", "Trip"],
      ["taxes", "Taxes"],
    ]);
    expect(page.threads[0]).toMatchObject({ owner: "u-7", metadata: { agent: "planner" }, messageCount: 2 });
    expect(page.threads[0]?.metadata).not.toHaveProperty("@skein/thread-service");
    const first = await service.listThreads({ owner: "u-7", limit: 1 });
    expect(first.threads.map((thread) => thread.threadId)).toEqual(["trip"]);
    const second = await service.listThreads({ owner: "u-7", limit: 1, cursor: first.cursor });
    expect(second.threads.map((thread) => thread.threadId)).toEqual(["taxes"]);
    expect(
      (await service.listThreads({ where: { agent: "planner" } })).threads.map((t) => t.threadId),
    ).toEqual(["trip"]);

    // A branch keeps its parent's owner and title.
    const branch = await service.branch("taxes");
    const mine = await service.listThreads({ owner: "u-7", order: "created", direction: "asc" });
    expect(mine.threads.map((thread) => thread.threadId)).toEqual(["trip", "taxes", branch.threadId]);
    expect(mine.threads[2]?.title).toBe("Taxes");
  });

  it("a bad owner creates nothing; bad list options are typed errors", async () => {
    const error = await service.createThread({ id: "bad", owner: "" }).catch((caught: unknown) => caught);
    expect(SkeinError.isInstance(error)).toBe(true);
    await expect(store.get("bad")).rejects.toBeInstanceOf(SkeinError);
    await expect(service.listThreads({ limit: 0 })).rejects.toBeInstanceOf(InvalidListOptionsError);
    await expect(service.listThreads({ owner: "x".repeat(300) })).rejects.toBeInstanceOf(
      InvalidListOptionsError,
    );
  });
});
