import { randomBytes } from "node:crypto";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { OwnerKeyVault } from "@skein/test-support/owner-keys";
import { KeyNotFoundError } from "@skein/thread-core/driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

// Every AES-256-GCM decryption goes through node:crypto's createDecipheriv: counted there.
const crypto = createRequire(import.meta.url)("node:crypto") as {
  createDecipheriv: (...args: unknown[]) => unknown;
};
const original = crypto.createDecipheriv;
let decryptions = 0;

beforeAll(() => {
  crypto.createDecipheriv = (...args: unknown[]) => {
    decryptions++;
    return original(...args);
  };
  syncBuiltinESMExports();
});

afterAll(() => {
  crypto.createDecipheriv = original;
  syncBuiltinESMExports();
});

async function decryptionsOf(work: () => Promise<unknown>): Promise<number> {
  const before = decryptions;
  await work();
  return decryptions - before;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

// Issue 41's Redis overhead: what an encrypted Redis store decrypts per append and per view, and that the
// plaintext it remembers never outlives the key (a shredded owner's) or leaks to a store with other keys.
describe("an encrypted redis store's decryptions", () => {
  const keys = { k: randomBytes(32) };

  it("an append decrypts nothing, and a view of messages read before decrypts nothing", async () => {
    const prefix = uniquePrefix("opened");
    const encryption = { keys, current: "k" };
    const writer = await redisStore({ url: singleUrl(), prefix, encryption });
    const reader = await redisStore({ url: singleUrl(), prefix, encryption });
    try {
      const thread = await writer.create();
      await thread.append(
        Array.from({ length: 30 }, (_, index) => ({ role: "user" as const, text: `m ${index}` })),
      );
      for (let index = 0; index < 3; index++) {
        expect(await decryptionsOf(() => thread.append({ role: "assistant", text: `reply ${index}` }))).toBe(
          0,
        );
      }
      expect(await decryptionsOf(() => thread.view({ maxMessages: 20 }))).toBe(0);
      // Another store (another process's memory) decrypts what it reads the first time only.
      const read = await reader.get(thread.id);
      expect(await decryptionsOf(() => read.view({ maxMessages: 20 }))).toBeGreaterThanOrEqual(20);
      expect(await decryptionsOf(() => read.view({ maxMessages: 20 }))).toBe(0);
      expect((await read.view({ maxMessages: 3 })).map((message) => message.contents)).toEqual([
        [{ type: "text", text: "reply 0" }],
        [{ type: "text", text: "reply 1" }],
        [{ type: "text", text: "reply 2" }],
      ]);
    } finally {
      await writer.close();
      await reader.close();
      await deleteKeys(singleUrl(), prefix);
    }
  });

  it("after shredOwner, a thread held since before reads as KeyNotFoundError, not from memory", async () => {
    const prefix = uniquePrefix("opened-shred");
    const vault = new OwnerKeyVault();
    const store = await redisStore({ url: singleUrl(), prefix, encryption: vault.encryption() });
    try {
      const ana = await store.create({ id: "ana-1", owner: "ana" });
      await ana.append({ id: "a1", role: "user", text: "ana's secret" });
      expect((await ana.messages()).map((message) => message.contents)).toEqual([
        [{ type: "text", text: "ana's secret" }],
      ]);
      await store.shredOwner("ana");
      const error = await failure(ana.messages());
      expect(KeyNotFoundError.isInstance(error), String(error)).toBe(true);
    } finally {
      await store.close();
      await deleteKeys(singleUrl(), prefix);
    }
  });

  it("a store without the key never reads what a store with it has read", async () => {
    const prefix = uniquePrefix("opened-rings");
    const holder = await redisStore({ url: singleUrl(), prefix, encryption: { keys, current: "k" } });
    const other = await redisStore({
      url: singleUrl(),
      prefix,
      encryption: { keys: { rotated: randomBytes(32) }, current: "rotated" },
    });
    try {
      const thread = await holder.create({ id: "t" });
      await thread.append({ role: "user", text: "sealed under k" });
      await thread.messages();
      expect(KeyNotFoundError.isInstance(await failure(other.get("t").then((read) => read.messages())))).toBe(
        true,
      );
    } finally {
      await holder.close();
      await other.close();
      await deleteKeys(singleUrl(), prefix);
    }
  });
});
