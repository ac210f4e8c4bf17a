import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createRegistry } from "../create-registry.js";
import { ConcurrencyError, UnsupportedOperationError } from "../errors.js";
import type { Message } from "../message.js";
import type { Thread } from "../thread.js";
import type { PairKey } from "./pair-key.js";
import { fileCallbacks } from "./test-support/file-callbacks.js";
import { createThreadManager, type PairState, type ThreadManagerCallbacks } from "./thread-manager.js";
import { ThreadManagerError } from "./thread-manager-error.js";

/** Callbacks over a map that keep the contract: store only while the stored revision is the expected one. */
function mapCallbacks() {
  const saved = new Map<string, { revision: number; state: unknown }>();
  const calls = { load: 0, save: 0 };
  const callbacks = {
    registry: createRegistry(),
    load: async (key: PairKey) => {
      calls.load++;
      return saved.get(key.threadId)?.state;
    },
    save: async (key: PairKey, state: PairState, options: { expectedRevision: number }) => {
      calls.save++;
      if ((saved.get(key.threadId)?.revision ?? 0) !== options.expectedRevision) return false;
      saved.set(key.threadId, { revision: state.revision, state: JSON.parse(JSON.stringify(state)) });
      return true;
    },
    list: async (chatId: string) => [...saved.keys()].map((threadId) => ({ chatId, threadId }) as PairKey),
  } satisfies ThreadManagerCallbacks & { registry: unknown };
  return { callbacks, saved, calls };
}

const texts = (messages: Message[]) =>
  messages.map((message) => (message.contents[0] as { text: string }).text);

/** The texts of the state the callbacks hold, read through a fresh manager. */
async function storedTexts(callbacks: ThreadManagerCallbacks, first = "A", second = "B") {
  const fresh = createThreadManager({ ...callbacks, registry: createRegistry() });
  return texts(await (await fresh.get("chat", first, second)).messages());
}

describe("thread manager with load/save callbacks", () => {
  it("persists each pair's thread through the callbacks", async () => {
    const { callbacks } = mapCallbacks();
    const manager = createThreadManager(callbacks);
    const thread = await manager.get("c", "planner", "writer");
    await thread.append({ role: "assistant", text: "draft" });
    await manager.save(thread);
    const later = createThreadManager(callbacks);
    const again = await later.get("c", "writer", "planner");
    expect(texts(await again.messages())).toEqual(["draft"]);
    expect(await later.list("c")).toHaveLength(1);
  });

  it("keeps all three messages when two callers save the same pair in turn", async () => {
    const { callbacks } = mapCallbacks();
    const manager = createThreadManager(callbacks);
    const a = await manager.get("chat", "A", "B");
    await a.append({ role: "user", text: "please do X" });
    await manager.save(a);
    const b = await manager.get("chat", "B", "A");
    await b.append({ role: "assistant", text: "done X" });
    await manager.save(b);
    await a.append({ role: "user", text: "thanks" });
    await manager.save(a);
    expect(b).toBe(a);
    expect(await storedTexts(callbacks)).toEqual(["please do X", "done X", "thanks"]);
  });

  it("keeps all three messages when two managers save the same pair in turn", async () => {
    const { callbacks } = mapCallbacks();
    const first = createThreadManager(callbacks);
    const second = createThreadManager(callbacks);
    const a = await first.get("chat", "A", "B");
    await a.append({ role: "user", text: "please do X" });
    await first.save(a);
    const b = await second.get("chat", "B", "A");
    await b.append({ role: "assistant", text: "done X" });
    await second.save(b);
    await a.append({ role: "user", text: "thanks" });
    await first.save(a);
    expect(await storedTexts(callbacks)).toEqual(["please do X", "done X", "thanks"]);
    // The merged save made `a` the newer state plus its own message.
    expect(texts(await a.messages())).toEqual(["please do X", "done X", "thanks"]);
  });

  it("gives save the revision it replaces, and skips saves with nothing new", async () => {
    const seen: Array<{ expected: number; revision: unknown }> = [];
    const { callbacks, calls } = mapCallbacks();
    const manager = createThreadManager({
      ...callbacks,
      save: (key, state, options) => {
        seen.push({ expected: options.expectedRevision, revision: state.revision });
        return callbacks.save(key, state, options);
      },
    });
    const thread = await manager.get("chat", "A", "B");
    await manager.save(thread);
    expect(calls.save).toBe(0);
    await thread.append([{ role: "user", text: "one" }]);
    await manager.save(thread);
    await thread.append({ role: "user", text: "two" });
    await thread.append({ role: "user", text: "three" });
    await manager.save(thread);
    expect(seen).toEqual([
      { expected: 0, revision: 1 },
      { expected: 1, revision: 3 },
    ]);
  });

  it("loses no acknowledged append when two managers append and save concurrently", async () => {
    const { callbacks } = mapCallbacks();
    const managers = [createThreadManager(callbacks), createThreadManager(callbacks)];
    const acknowledged: string[] = [];
    await Promise.all(
      managers.map(async (manager, which) => {
        for (let index = 0; index < 25; index++) {
          const thread = await manager.get("chat", "A", "B");
          const id = `m${which}-${index}`;
          await manager.appendAndSave(thread, { id, role: "user", text: id });
          acknowledged.push(id);
        }
      }),
    );
    expect((await storedTexts(callbacks)).sort()).toEqual(acknowledged.sort());
    expect(acknowledged).toHaveLength(50);
  });

  it("treats a ConcurrencyError thrown by save as a refused save, and merges", async () => {
    const { callbacks } = mapCallbacks();
    const throwing: ThreadManagerCallbacks = {
      ...callbacks,
      save: async (key, state, options) => {
        if (await callbacks.save(key, state, options)) return true;
        throw new ConcurrencyError(key.threadId, options.expectedRevision, -1);
      },
    };
    const first = createThreadManager({ ...throwing, registry: createRegistry() });
    const second = createThreadManager({ ...throwing, registry: createRegistry() });
    const a = await first.get("chat", "A", "B");
    const b = await second.get("chat", "A", "B");
    await first.appendAndSave(a, { role: "user", text: "one" });
    await second.appendAndSave(b, { role: "user", text: "two" });
    expect(await storedTexts(callbacks)).toEqual(["one", "two"]);
  });

  it("steps back after a lost race before it loads and saves again, so colliding writers spread out", async () => {
    const { callbacks, calls } = mapCallbacks();
    const first = createThreadManager({ ...callbacks, registry: createRegistry() });
    const second = createThreadManager({ ...callbacks, registry: createRegistry() });
    const a = await first.get("chat", "A", "B");
    const b = await second.get("chat", "A", "B");
    await second.appendAndSave(b, { role: "user", text: "two" });
    await a.append({ role: "user", text: "one" });
    vi.useFakeTimers();
    try {
      const before = { ...calls };
      let settled = false;
      const saving = first.save(a).finally(() => {
        settled = true;
      });
      // The first attempt loses (the other manager saved since); nothing more happens until time passes.
      await vi.advanceTimersByTimeAsync(0);
      expect([calls.save - before.save, calls.load - before.load, settled]).toEqual([1, 0, false]);
      await vi.advanceTimersByTimeAsync(100);
      await saving;
      expect([calls.save - before.save, calls.load - before.load]).toEqual([2, 1]);
    } finally {
      vi.useRealTimers();
    }
    expect(await storedTexts(callbacks)).toEqual(["two", "one"]);
  });

  it("does not repeat messages when a save stored but its reply was lost", async () => {
    const { callbacks } = mapCallbacks();
    let fail = true;
    const manager = createThreadManager({
      ...callbacks,
      save: async (key, state, options) => {
        const stored = await callbacks.save(key, state, options);
        if (fail) {
          fail = false;
          throw new Error("connection reset");
        }
        return stored;
      },
    });
    const thread = await manager.get("chat", "A", "B");
    await expect(manager.appendAndSave(thread, { role: "user", text: "once" })).rejects.toThrow(
      ThreadManagerError,
    );
    await thread.append({ role: "user", text: "twice" });
    await manager.save(thread);
    expect(await storedTexts(callbacks)).toEqual(["once", "twice"]);
  });

  it("refuses, without writing, a save whose unsaved changes are more than appends", async () => {
    const { callbacks } = mapCallbacks();
    const first = createThreadManager(callbacks);
    const second = createThreadManager(callbacks);
    const a = await first.get("chat", "A", "B");
    await first.appendAndSave(a, { role: "user", text: "one" });
    const b = await second.get("chat", "A", "B");
    await second.appendAndSave(b, { role: "user", text: "two" });
    await a.append({ role: "user", text: "three" });
    await a.rollback((await a.messages())[0]?.id as string);
    const error = await first.save(a).catch((caught: unknown) => caught);
    expect(ConcurrencyError.isInstance(error)).toBe(true);
    expect(await storedTexts(callbacks)).toEqual(["one", "two"]);
    // The refused object is forgotten: the next get reads the saved state.
    const again = await first.get("chat", "A", "B");
    expect(again).not.toBe(a);
    expect(texts(await again.messages())).toEqual(["one", "two"]);
  });

  it("refuses to merge onto a stored state older than one it saved", async () => {
    const { callbacks, saved } = mapCallbacks();
    const manager = createThreadManager(callbacks);
    const thread = await manager.get("chat", "A", "B");
    await manager.appendAndSave(thread, { role: "user", text: "one" });
    const older = saved.get(thread.id);
    await manager.appendAndSave(thread, { role: "user", text: "two" });
    saved.set(thread.id, older as NonNullable<typeof older>); // the storage went back, say, to a backup
    const error = await manager
      .appendAndSave(thread, { role: "user", text: "three" })
      .catch((caught: unknown) => caught as Error);
    expect(ThreadManagerError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/older than revision 2/);
    expect(await storedTexts(callbacks)).toEqual(["one"]);
    // The refused object is forgotten: the next get works from what the storage holds now.
    const again = await manager.get("chat", "A", "B");
    expect(again).not.toBe(thread);
    await manager.appendAndSave(again, { role: "user", text: "after the restore" });
    expect(await storedTexts(callbacks)).toEqual(["one", "after the restore"]);
  });

  it("refuses to save a thread it did not give out, saying so", async () => {
    const { callbacks } = mapCallbacks();
    const manager = createThreadManager(callbacks);
    const other = await createThreadManager(mapCallbacks().callbacks).get("chat", "A", "B");
    const error = await manager.save(other).catch((caught: unknown) => caught as Error);
    expect(ThreadManagerError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/was not got from this thread manager/);
  });

  it("refresh() brings in what another manager saved, keeping unsaved appends", async () => {
    const { callbacks } = mapCallbacks();
    const first = createThreadManager(callbacks);
    const second = createThreadManager(callbacks);
    const a = await first.get("chat", "A", "B");
    await first.appendAndSave(a, { role: "user", text: "one" });
    const b = await second.get("chat", "A", "B");
    await second.appendAndSave(b, { role: "user", text: "two" });
    await a.append({ role: "user", text: "three" });
    await a.refresh();
    expect(texts(await a.messages())).toEqual(["one", "two", "three"]);
    await first.save(a);
    expect(await storedTexts(callbacks)).toEqual(["one", "two", "three"]);
  });

  it("returns one object per pair, created by one load however many callers ask at once", async () => {
    const { callbacks, calls } = mapCallbacks();
    const manager = createThreadManager(callbacks);
    const threads = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        index % 2 ? manager.get("chat", "A", "B") : manager.get("chat", "B", "A"),
      ),
    );
    expect(new Set(threads).size).toBe(1);
    expect(calls.load).toBe(1);
  });

  it("keeps at most cacheSize pairs live, forgetting the least recently used", async () => {
    const { callbacks, calls } = mapCallbacks();
    const manager = createThreadManager({ ...callbacks, cacheSize: 2 });
    const ab = await manager.get("chat", "A", "B");
    const ac = await manager.get("chat", "A", "C");
    expect(await manager.get("chat", "B", "A")).toBe(ab); // now the most recently used
    await manager.get("chat", "A", "D"); // forgets A-C
    expect(await manager.get("chat", "A", "B")).toBe(ab);
    expect(await manager.get("chat", "A", "C")).not.toBe(ac);
    expect(calls.load).toBe(4);
    expect(() => createThreadManager({ ...callbacks, cacheSize: 0 })).toThrow(RangeError);
  });

  it("saves an object the cache forgot without losing what the newer object saved", async () => {
    const { callbacks } = mapCallbacks();
    const manager = createThreadManager({ ...callbacks, cacheSize: 1 });
    const old = await manager.get("chat", "A", "B");
    await manager.get("chat", "A", "C"); // forgets A-B
    const fresh = await manager.get("chat", "A", "B");
    expect(fresh).not.toBe(old);
    await manager.appendAndSave(fresh, { role: "user", text: "from the fresh object" });
    await manager.appendAndSave(old, { role: "user", text: "from the forgotten object" });
    expect(await storedTexts(callbacks)).toEqual(["from the fresh object", "from the forgotten object"]);
  });

  it("refuses a save callback that does not say whether it stored", async () => {
    const { callbacks } = mapCallbacks();
    const manager = createThreadManager({
      ...callbacks,
      save: (async () => undefined) as unknown as ThreadManagerCallbacks["save"],
    });
    const thread = await manager.get("chat", "A", "B");
    const error = await manager
      .appendAndSave(thread, { role: "user", text: "hi" })
      .catch((caught: unknown) => caught as Error);
    expect(ThreadManagerError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/not true or false/);
  });

  it("refuses a save callback that refuses the revision load reports", async () => {
    const { callbacks } = mapCallbacks();
    const manager = createThreadManager({ ...callbacks, save: async () => false });
    const thread = await manager.get("chat", "A", "B");
    const error = await manager
      .appendAndSave(thread, { role: "user", text: "hi" })
      .catch((caught: unknown) => caught as Error);
    expect(ThreadManagerError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/refused revision 0/);
  });

  it("refuses to delete a pair thread it does not keep", async () => {
    const { callbacks } = mapCallbacks();
    const thread = await createThreadManager(callbacks).get("chat", "A", "B");
    const error = await thread.delete().catch((caught: unknown) => caught);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
  });

  it("surfaces callback failures as typed errors with their cause", async () => {
    const failure = new Error("database down");
    const manager = createThreadManager({
      registry: createRegistry(),
      load: async () => {
        throw failure;
      },
      save: async () => true,
    });
    const error = await manager.get("c", "a").then(
      () => new Error("resolved"),
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(ThreadManagerError);
    expect(error.message).toContain("database down");
    expect(error.cause).toBe(failure);
    await expect(manager.list("c")).rejects.toThrow(/list callback/);
  });
});

describe("thread manager callbacks shared by two processes", () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const worker = fileURLToPath(new URL("./test-support/append-worker.ts", import.meta.url));
  const packageDirectory = fileURLToPath(new URL("../..", import.meta.url));
  /** Starts a worker; `go` lets it start appending once it is ready, `done` gives its acknowledged ids. */
  const start = (name: string, count: number) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", worker, directory as string, name, `${count}`],
      {
        cwd: packageDirectory,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    let readyNow: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      readyNow = resolve;
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.startsWith("ready\n")) readyNow();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const done = new Promise<string[]>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0
          ? resolve(stdout.split("\n").filter((line) => line && line !== "ready"))
          : reject(new Error(`${name} exited with ${code}: ${stderr}`)),
      );
    });
    return { ready, go: () => child.stdin.write("go\n"), done };
  };

  it("never lose an acknowledged append", async () => {
    directory = await mkdtemp(join(tmpdir(), "skein-manager-"));
    const workers = [start("p1", 40), start("p2", 40)];
    await Promise.all(workers.map((running) => running.ready));
    for (const running of workers) running.go();
    const acknowledged = (await Promise.all(workers.map((running) => running.done))).flat();
    expect(acknowledged).toHaveLength(80);
    const thread: Thread = await createThreadManager({
      ...fileCallbacks(directory),
      registry: createRegistry(),
    }).get("chat", "writer", "planner");
    const stored = (await thread.messages()).map((message) => message.id);
    expect(stored.sort()).toEqual(acknowledged.sort());
  }, 60_000);
});
