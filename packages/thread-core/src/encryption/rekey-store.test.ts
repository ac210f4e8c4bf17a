import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import type { LogThread } from "../local/log-thread.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import { runRekeySuite } from "../testing/rekey-suite.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";

/** One memory backend that outlives the stores opened on it (a store's close would close it). */
class KeptMemoryDriver extends MemoryLogDriver {
  override async close(): Promise<void> {}
}

let backend = new KeptMemoryDriver();

runRekeySuite({
  name: "memory",
  openStore: async (encryption) =>
    new LocalStore({
      driver: encryption ? encryptingLogDriver(backend, encryption) : backend,
      registry: createRegistry(),
      url: "memory:",
    }),
  cleanup: async () => {
    backend = new KeptMemoryDriver();
  },
  describe,
  it,
});

/** A memory backend where another writer appends to `thread` just before each record rewrite lands. */
class BusyMemoryDriver extends MemoryLogDriver {
  beforeRewrite?: () => Promise<void>;
  rewrites = 0;
  override async rewriteRecord(...args: Parameters<MemoryLogDriver["rewriteRecord"]>): Promise<boolean> {
    this.rewrites++;
    await this.beforeRewrite?.();
    return super.rewriteRecord(...args);
  }
}

describe("rekey on a thread that is appended to between every read and rewrite", () => {
  it("converges: the append moves the end, and a rewrite without it does not race appends", async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const inner = new BusyMemoryDriver();
    const storeWith = (encryption: EncryptionOptions) =>
      new LocalStore({
        driver: encryptingLogDriver(inner, encryption),
        registry: createRegistry(),
        url: "memory:",
      });
    const first = await storeWith({ keys: { old: oldKey }, current: "old" }).create({
      id: "busy",
      metadata: { topic: "busy" },
    });
    await first.append({ id: "m0", role: "user", text: "first" });
    const rotated = { keys: { old: oldKey, new: newKey }, current: "new" };
    const writer = await storeWith(rotated).get("busy");
    let appended = 0;
    inner.beforeRewrite = async () => {
      appended++;
      await writer.append({ id: `w${appended}`, role: "user", text: `w${appended}` });
    };
    const report = await storeWith(rotated).rekey();
    inner.beforeRewrite = undefined;
    expect(report.remaining).toEqual({});
    expect(inner.rewrites).toBe(2);
    const fresh = await storeWith({ keys: { new: newKey }, current: "new" }).get("busy");
    expect(fresh.metadata).toEqual({ topic: "busy" });
    expect((await fresh.messages()).map((message) => message.id)).toEqual(["m0", "w1", "w2"]);
  });
});

describe("rekey of a thread with a reply still streaming", () => {
  it("moves the reply's batches too, so the thread reads with the new key alone", async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const inner = new KeptMemoryDriver();
    const storeWith = (encryption: EncryptionOptions) =>
      new LocalStore({
        driver: encryptingLogDriver(inner, encryption),
        registry: createRegistry(),
        url: "memory:",
      });
    const thread = (await storeWith({ keys: { old: oldKey }, current: "old" }).create({
      id: "live",
    })) as LogThread;
    await thread.append({ id: "q", role: "user", text: "question" });
    // A writer whose process died mid-reply: one batch flushed, under the old key, its lease still running.
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 1, leaseMs: 3_600_000 });
    await reply.write("half an answer");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const report = await storeWith({ keys: { old: oldKey, new: newKey }, current: "new" }).rekey();
    expect(report.remaining).toEqual({});
    const reader = (await storeWith({ keys: { new: newKey }, current: "new" }).get("live")) as LogThread;
    const messages = await reader.messages();
    expect(messages.map((message) => message.id)).toEqual(["q", reply.id]);
    expect(messages[1]?.contents).toEqual([{ type: "text", text: "half an answer" }]);
    await reply.fail(new Error("gone")).catch(() => undefined);
  });
});
