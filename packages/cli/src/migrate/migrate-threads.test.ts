import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreNotFoundError } from "@skein/adapter-fs";
import {
  createRegistry,
  InvalidThreadStateError,
  openStore,
  StoreUnavailableError,
  type ThreadStore,
} from "@skein/thread-core";
import { canonicalJson } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../cli/cli-error.js";
import { migrateThreads } from "./migrate-threads.js";

async function storeWith(ids: string[], text = "hello"): Promise<ThreadStore> {
  const store = await openStore("memory:", { registry: createRegistry() });
  for (const id of ids) {
    const thread = await store.create({ id });
    await thread.append({ role: "user", text: `${text} ${id}` });
    await thread.checkpoint("one");
  }
  return store;
}

describe("migrateThreads", () => {
  it("copies every thread with its history, then skips them all when run again", async () => {
    const from = await storeWith(["a", "b", "c"]);
    const to = await storeWith([]);
    const progress: number[] = [];
    const first = await migrateThreads(from, to, {
      concurrency: 2,
      onProgress: (done) => progress.push(done),
    });
    expect(first).toMatchObject({ total: 3, copied: 3, unchanged: 0, differing: [], vanished: [] });
    expect(progress).toEqual([0, 1, 2, 3]);
    for (const id of ["a", "b", "c"]) {
      expect(canonicalJson(await to.export(id))).toBe(canonicalJson(await from.export(id)));
    }
    expect(await migrateThreads(from, to)).toMatchObject({ copied: 0, unchanged: 3 });
  });

  it("reports a thread the destination refuses with a subclass of a thread error, and copies the rest", async () => {
    // A backend's own refusal, in the InvalidThreadStateError family under another name.
    class TooLargeForBackendError extends InvalidThreadStateError {
      static override readonly marker: string = "skein.test.TooLargeForBackendError";
    }
    const from = await storeWith(["a", "b", "c"]);
    const inner = await storeWith([]);
    const to = new Proxy(inner, {
      get(target, property, receiver) {
        if (property !== "import") return Reflect.get(target, property, receiver);
        return (state: { id: string }, ...rest: unknown[]) =>
          state.id === "b"
            ? Promise.reject(new TooLargeForBackendError("the backend holds 1 MB a row"))
            : (target.import as (...args: unknown[]) => Promise<unknown>)(state, ...rest);
      },
    });
    const report = await migrateThreads(from, to);
    expect(report).toMatchObject({ total: 3, copied: 2 });
    expect(report.failed).toEqual([
      { id: "b", error: expect.stringContaining("the backend holds 1 MB a row") },
    ]);
  });

  it("leaves a differing destination thread alone unless told to overwrite it", async () => {
    const from = await storeWith(["a", "b"]);
    const to = await storeWith(["b"], "other");
    expect(await migrateThreads(from, to)).toMatchObject({ copied: 1, unchanged: 0, differing: ["b"] });
    expect(canonicalJson(await to.export("b"))).not.toBe(canonicalJson(await from.export("b")));
    expect(await migrateThreads(from, to, { overwrite: true })).toMatchObject({
      copied: 1,
      unchanged: 1,
      differing: [],
    });
    expect(canonicalJson(await to.export("b"))).toBe(canonicalJson(await from.export("b")));
  });

  it("keeps forks sharing their parent's history in the destination", async () => {
    const from = await storeWith(["parent"]);
    const fork = await (await from.get("parent")).fork({ id: "parent-fork" });
    await fork.append({ role: "assistant", text: "only in the fork" });
    const to = await storeWith([]);
    await migrateThreads(from, to);
    const copied = await to.get("parent-fork");
    expect((await copied.messages()).map((message) => message.contents[0])).toEqual([
      { type: "text", text: "hello parent" },
      { type: "text", text: "only in the fork" },
    ]);
    expect((await copied.history())[0]).toMatchObject({ kind: "fork", parentId: "parent" });
  });

  it("retries a thread that failed once after the others, reports it if it fails again, and goes on", async () => {
    const from = await storeWith(["a", "bad", "late"]);
    const to = await storeWith([]);
    const attempts: Record<string, number> = {};
    const flaky: ThreadStore = Object.create(to, {
      import: {
        value: async (state: { id: string }, options?: { id?: string }) => {
          attempts[state.id] = (attempts[state.id] ?? 0) + 1;
          if (state.id === "bad") throw new InvalidThreadStateError("cannot be opened here");
          // "late" needs another thread first, as a workflow needs its sub-threads.
          if (state.id === "late" && attempts.late === 1) throw new InvalidThreadStateError("not yet");
          return to.import(state, options);
        },
      },
    });
    const report = await migrateThreads(from, flaky, { concurrency: 3 });
    expect(report).toMatchObject({
      total: 3,
      copied: 2,
      failed: [{ id: "bad", error: expect.stringContaining("cannot be opened here") }],
    });
    expect(attempts).toEqual({ a: 1, bad: 2, late: 2 });
  });

  it("stops at an error that is not about one thread (a store gone)", async () => {
    const from = await storeWith(["a", "b", "c"]);
    const to = await storeWith([]);
    const gone: ThreadStore = Object.create(to, {
      import: { value: async () => Promise.reject(new StoreUnavailableError("the store went away")) },
    });
    await expect(migrateThreads(from, gone, { concurrency: 1 })).rejects.toThrow("the store went away");
  });
});

describe("migrateThreads' store arguments", () => {
  it("takes store URLs for either end, opens them and closes them after", async () => {
    expect(await migrateThreads("memory:", "memory:")).toMatchObject({ total: 0, copied: 0 });
    const directory = await mkdtemp(join(tmpdir(), "skein-migrate-urls-"));
    try {
      const source = await openStore(`file:${join(directory, "from")}`, { registry: createRegistry() });
      await (await source.create({ id: "a" })).append({ role: "user", text: "hi" });
      await source.close();
      const report = await migrateThreads(
        `file:${join(directory, "from")}`,
        new URL(`file://${join(directory, "to")}`),
      );
      expect(report).toMatchObject({ total: 1, copied: 1 });
      const copied = await openStore(`file:${join(directory, "to")}`, { registry: createRegistry() });
      expect((await (await copied.get("a")).messages()).map((message) => message.contents)).toEqual([
        [{ type: "text", text: "hi" }],
      ]);
      await copied.close();
      // A source URL that holds no store is an error, and neither end is created.
      await expect(
        migrateThreads(`file:${join(directory, "missing")}`, `file:${join(directory, "dest")}`),
      ).rejects.toSatisfy((error) => StoreNotFoundError.isInstance(error));
      expect((await readdir(directory)).sort()).toEqual(["from", "to"]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("refuses, at the call, what is neither a store nor a URL, with InvalidArgumentError", async () => {
    const store = await storeWith(["a"]);
    for (const [from, to] of [
      [{}, store],
      [store, 42],
      [null, "memory:"],
    ] as const) {
      const error = await migrateThreads(from as unknown as ThreadStore, to as unknown as ThreadStore).catch(
        (caught: unknown) => caught,
      );
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /^\[cli\] migrateThreads' (from|to) must be a ThreadStore or a store URL such as file:.\/.skein; it was /,
      );
    }
  });
});
