import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { KeyRing, MAX_PROVIDED_KEYS } from "./key-ring.js";

describe("KeyRing: keys a provider gave stay bounded", () => {
  it("keeps at most MAX_PROVIDED_KEYS, the least recently used going first, asked for again when needed", async () => {
    const asked = new Map<string, number>();
    const keys = new Map<string, Buffer>();
    const ring = new KeyRing({
      current: "v1",
      ownerKeyProvider: ({ owner }) => {
        const name = owner ?? "";
        asked.set(name, (asked.get(name) ?? 0) + 1);
        if (!keys.has(name)) keys.set(name, randomBytes(32));
        return keys.get(name);
      },
    });
    const first = await ring.key("v1", "owner-0");
    await ring.key("v1", "owner-1");
    for (let index = 2; index <= MAX_PROVIDED_KEYS; index++) {
      await ring.key("v1", `owner-${index}`);
      // owner-0 is used all along: it is never the least recently used.
      if (index % 1_000 === 0) expect(ring.keyNow("v1", "owner-0")).toBe(first);
      if (index % 1_000 === 0) await ring.key("v1", "owner-0");
    }
    // One more than the bound: owner-1, used once and long ago, went; owner-0 stayed.
    expect(ring.keyNow("v1", "owner-1")).toBeUndefined();
    expect(ring.keyNow("v1", "owner-0")).toBe(first);
    expect(ring.holds(first)).toBe(true);
    const again = await ring.key("v1", "owner-1");
    expect(asked.get("owner-1")).toBe(2);
    expect(asked.get("owner-0")).toBe(1);
    // The same key bytes come back from the provider: the same key, a new ring entry.
    expect(again.check).toBe((await ring.key("v1", "owner-1")).check);
  });
});
