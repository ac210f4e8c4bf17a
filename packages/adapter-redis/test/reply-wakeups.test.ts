import type { LocalStore } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { clusterUrl, deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

/**
 * A watcher on one connection is woken by a `notify` sent on another (another process, as far as Redis can
 * tell). The subscription is made asynchronously, so the writer notifies until the watcher hears one; the
 * test's timeout is the failure.
 */
async function wokenAcrossConnections(open: () => ReturnType<typeof redisStore>): Promise<boolean> {
  const watching = (open() as unknown as LocalStore).driver;
  const writing = (open() as unknown as LocalStore).driver;
  try {
    const segment = "wakeup-test-segment";
    let woken = false;
    const stop = watching.watch?.(segment, () => {
      woken = true;
    });
    expect(stop).toBeDefined();
    while (!woken) {
      await writing.notify?.(segment);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await stop?.();
    return woken;
  } finally {
    await watching.close();
    await writing.close();
  }
}

describe("wake-ups for followers of a streamed reply", () => {
  it("reach a watcher on another connection through pub/sub", async () => {
    const prefix = uniquePrefix("wakeups");
    expect(await wokenAcrossConnections(() => redisStore({ url: singleUrl(), prefix }))).toBe(true);
    await deleteKeys(singleUrl(), prefix);
  }, 30_000);

  it("reach a watcher on another Cluster connection", async () => {
    const prefix = uniquePrefix("wakeups");
    expect(await wokenAcrossConnections(() => redisStore({ url: clusterUrl(), cluster: true, prefix }))).toBe(
      true,
    );
    await deleteKeys(clusterUrl(), prefix);
  }, 30_000);
});
