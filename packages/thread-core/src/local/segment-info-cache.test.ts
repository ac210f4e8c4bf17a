import { describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.js";
import type { LocalStore } from "./local-store.js";
import { SegmentChains } from "./segment-chain.js";
import { SegmentInfoCache } from "./segment-info-cache.js";

describe("SegmentInfoCache", () => {
  it("keeps at most its capacity, forgets the least recently used, and loads each info once while held", async () => {
    const loads: string[] = [];
    const cache = new SegmentInfoCache(async (id) => {
      loads.push(id);
      return id === "gone" ? undefined : { id, base: null, start: 0, createdAt: "2026-01-01T00:00:00.000Z" };
    }, 2);
    await cache.get("a");
    await cache.get("b");
    await cache.get("a");
    await cache.get("c"); // forgets b, the least recently used
    expect(cache.size).toBe(2);
    expect(cache.cached("b")).toBeUndefined();
    expect(await cache.get("gone")).toBeUndefined();
    await cache.get("a");
    expect(loads).toEqual(["a", "b", "c", "gone"]);
    await cache.get("a", { cached: false });
    cache.forget("c");
    expect(cache.cached("c")).toBeUndefined();
    expect(loads).toEqual(["a", "b", "c", "gone", "a"]);
  });

  it("bounds the segment infos a store's reads keep, however many threads they touch", async () => {
    const store = (await openStore("memory:")) as LocalStore;
    const driver = store.driver;
    const chains = new SegmentChains(driver, 8);
    for (let index = 0; index < 40; index++) {
      const thread = await store.create();
      await thread.append({ role: "user", text: `${index}` });
      const fork = await thread.fork();
      const head = (await driver.read(fork.id)) as { head: string };
      expect(await chains.read(await chains.chain(head.head, 0), 0, 1)).toHaveLength(1);
    }
    expect(chains.cachedInfos).toBeLessThanOrEqual(8);
    await store.close();
  });
});
