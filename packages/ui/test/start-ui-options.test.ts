// startUi's options are checked before a server starts, and a store URL is opened by the UI, which then
// owns the store and closes it in close(). No browser: these are the server's own answers.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, StoreClosedError, type ThreadStore } from "@skein/thread-core";
import { registerStoreAdapter } from "@skein/thread-core/driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUi, UiOptionsError } from "../src/index.js";

/** Stores opened through the `ui-options-test:` scheme, so a test can see whether the UI closed them. */
const opened: ThreadStore[] = [];
registerStoreAdapter(() => ({
  specificationVersion: "v1",
  packageName: "ui-options-test",
  schemes: ["ui-options-test"],
  types: [],
  openStore: async () => {
    const store = await openStore("memory:");
    opened.push(store);
    return store;
  },
}));

/** Calls startUi the way untyped callers (plain JS, a config file) do. */
const untypedStartUi = startUi as unknown as (options?: unknown) => ReturnType<typeof startUi>;

/** The error startUi rejected with. */
async function refusal(options?: unknown): Promise<unknown> {
  return untypedStartUi(options).then(
    async (server) => {
      await server.close();
      throw new Error(`expected a refusal, got a server on ${server.url}`);
    },
    (error: unknown) => error,
  );
}

describe("startUi's options", () => {
  let store: ThreadStore;
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "skein-ui-options-"));
    store = await openStore(`file://${directory}`);
    await (await store.create({ id: "kept" })).append({ role: "user", text: "hello" });
  });
  afterAll(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("refuse no options, a store that is not one, and a port, write or poll interval of the wrong kind", async () => {
    for (const [options, option] of [
      [undefined, "its options"],
      [{}, "options.store"],
      [{ store: openStore("memory:") }, "options.store"],
      [{ store: 42 }, "options.store"],
      [{ store, port: "abc" }, "options.port"],
      [{ store, port: "4000" }, "options.port"],
      [{ store, port: 70_000 }, "options.port"],
      [{ store, port: -1 }, "options.port"],
      [{ store, port: 1.5 }, "options.port"],
      [{ store, write: "yes" }, "options.write"],
      [{ store, pollInterval: 0 }, "options.pollInterval"],
    ] as const) {
      const error = await refusal(options);
      expect(UiOptionsError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ option });
    }
    expect((await refusal({ store: openStore("memory:") })) as Error).toHaveProperty(
      "message",
      expect.stringContaining("missing await"),
    );
  });

  it("open a store URL, serve it, and close it with the server", async () => {
    const ui = await startUi({ store: `file://${directory}` });
    const response = await fetch(`http://127.0.0.1:${ui.port}/api/threads?token=${ui.token}`);
    expect(response.status).toBe(200);
    expect((await response.json()).items).toEqual([expect.objectContaining({ id: "kept", messageCount: 1 })]);
    await ui.close();

    const counted = await startUi({ store: "ui-options-test:" });
    expect(opened).toHaveLength(1);
    const owned = opened[0] as ThreadStore;
    await owned.create({ id: "alive" });
    await counted.close();
    await expect(owned.list()).rejects.toSatisfy((error) => StoreClosedError.isInstance(error));
  });

  it("leave a store it was given open when it closes", async () => {
    const ui = await startUi({ store });
    await ui.close();
    expect((await store.list()).items.map((item) => item.id)).toEqual(["kept"]);
  });

  it("close the store it opened when the server cannot listen", async () => {
    const first = await startUi({ store });
    const error = await refusal({ store: "ui-options-test:", port: first.port });
    await first.close();
    expect((error as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
    await expect((opened.at(-1) as ThreadStore).list()).rejects.toSatisfy((closed) =>
      StoreClosedError.isInstance(closed),
    );
  });
});
