import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";

/**
 * A memory backend kept across stores, where every message rewrite in `losing` segments loses its fence (as
 * when a writer or another rekey moved the message first and put it back under the old key: a run cannot
 * tell), so those messages stay on their old key and the report must say whose they are.
 */
class RacedMemoryDriver extends MemoryLogDriver {
  readonly losing = new Set<string>();
  override async close(): Promise<void> {}
  override async rewriteMessages(
    ...args: Parameters<MemoryLogDriver["rewriteMessages"]>
  ): Promise<boolean[]> {
    const [segment, rewrites] = args;
    if (this.losing.has(segment)) return rewrites.map(() => false);
    return super.rewriteMessages(...args);
  }
}

/** Per-owner keys, as a KMS gives them: one key per owner (and one for threads without one) and key id. */
function ownerKeys(current: string): EncryptionOptions {
  return { current, ownerKeyProvider: ({ owner, keyId }) => KEYS.get(`${owner ?? ""}/${keyId}`) };
}
const KEYS = new Map(
  ["", "ana", "ben"].flatMap((owner) => ["old", "new"].map((id) => [`${owner}/${id}`, randomBytes(32)])),
);

function storeWith(inner: MemoryLogDriver, encryption: EncryptionOptions): LocalStore {
  return new LocalStore({
    driver: encryptingLogDriver(inner, encryption),
    registry: createRegistry(),
    url: "memory:",
  });
}

/** Three threads under "old": ana's, ben's and one without an owner, two messages each. */
async function seeded(inner: MemoryLogDriver): Promise<void> {
  const store = storeWith(inner, ownerKeys("old"));
  for (const owner of ["ana", "ben", undefined]) {
    const thread = await store.create({ id: owner ?? "shared", ...(owner ? { owner } : {}) });
    await thread.append([
      { id: "m1", role: "user", text: "asks" },
      { id: "m2", role: "assistant", text: "answers" },
    ]);
  }
}

describe("a rekey report with per-owner keys", () => {
  it("says, by owner, what was moved and what still uses an old key", async () => {
    const inner = new RacedMemoryDriver();
    await seeded(inner);
    const ben = await inner.read("ben");
    if (ben?.kind !== "log") throw new Error("no log record ben");
    inner.losing.add(ben.head);
    const report = await storeWith(inner, ownerKeys("new")).rekey();
    // Each thread: two messages, then its metadata, context and authenticated end.
    expect(report.rewritten).toEqual({ old: 13 });
    expect(report.remaining).toEqual({ old: 2 });
    expect(report.owners).toEqual([
      { rewritten: { old: 5 }, remaining: {} },
      { owner: "ana", rewritten: { old: 5 }, remaining: {} },
      { owner: "ben", rewritten: { old: 3 }, remaining: { old: 2 } },
    ]);
    // Once nothing races it, the next run moves ben's messages, and no owner needs "old" any more.
    inner.losing.clear();
    const again = await storeWith(inner, ownerKeys("new")).rekey();
    expect(again.remaining).toEqual({});
    expect(again.owners).toEqual([{ owner: "ben", rewritten: { old: 2 }, remaining: {} }]);
  });

  it("is left out where keys are not per owner", async () => {
    const inner = new RacedMemoryDriver();
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    await storeWith(inner, { keys: { old: oldKey }, current: "old" }).create({ id: "t", owner: "ana" });
    const report = await storeWith(inner, { keys: { old: oldKey, new: newKey }, current: "new" }).rekey();
    expect(report.rewritten).toEqual({ old: 3 });
    expect(report).not.toHaveProperty("owners");
  });
});
