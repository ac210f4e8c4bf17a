import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { encryptingLogDriver } from "../encryption/encrypting-log-driver.js";
import { KeyNotFoundError } from "../encryption/encryption-errors.js";
import { heapHolds } from "../encryption/test-support/heap-holds.js";
import { LocalStore } from "../local/local-store.js";
import type { LogDriver } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { EncryptionOwnerKeyProvider } from "../spec/encryption-options.js";

/** A key store with one key per owner and id, and a destroy, as a KMS would offer. */
function vault() {
  const keys = new Map<string, Buffer>();
  const destroyed: string[] = [];
  const options: EncryptionOwnerKeyProvider = {
    current: "v1",
    ownerKeyProvider: ({ owner, keyId }) => {
      if (destroyed.includes(owner ?? "")) return undefined;
      const name = `${owner ?? ""}/${keyId}`;
      if (!keys.has(name)) keys.set(name, randomBytes(32));
      return keys.get(name);
    },
    destroyOwnerKey: (owner) => {
      destroyed.push(owner);
    },
  };
  return { options, destroyed };
}

function storeOver(driver: LogDriver): LocalStore {
  return new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
}

/**
 * `driver` whose first `delete` first runs `before`: what another process does between the erasure's plan
 * and its deletes.
 */
function beforeFirstDelete(driver: MemoryLogDriver, before: () => Promise<void>): LogDriver {
  let ran = false;
  return new Proxy(driver, {
    get(target, property) {
      if (property === "delete") {
        return async (id: string, options?: { ifRevision?: number }) => {
          if (!ran) {
            ran = true;
            await before();
          }
          return target.delete(id, options);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const utf8 = new TextEncoder();
const jsonBytes = (value: unknown) => utf8.encode(JSON.stringify(value)).length;

describe("store.erase", () => {
  it("counts bytes as the stored record plus the messages the thread reaches, as JSON", async () => {
    const driver = new MemoryLogDriver();
    const store = storeOver(driver);
    const thread = await store.create({ id: "t", owner: "ana", title: "Ana's", metadata: { topic: "x" } });
    await thread.append([
      // Two-, three- and four-byte characters: bytes are UTF-8 bytes, not string length.
      { id: "m1", role: "user", text: "question é ✓ 😀" },
      { id: "m2", role: "assistant", text: "answer" },
    ]);
    await thread.checkpoint("after the answer ü");
    const expected = jsonBytes(await driver.read("t")) + jsonBytes(await thread.messages());

    const report = await store.erase({ owner: "ana" });
    expect(report).toMatchObject({ threads: 1, messages: 2, bytes: expected });
  });

  it("destroys the owner's keys after deleting, on a store with per-owner keys, and reports it", async () => {
    const { options, destroyed } = vault();
    const store = storeOver(encryptingLogDriver(new MemoryLogDriver(), options));
    for (const id of ["ana-1", "ana-2"]) {
      const thread = await store.create({ id, owner: "ana" });
      await thread.append({ role: "user", text: "ana's words" });
    }
    const ben = await store.create({ id: "ben-1", owner: "ben" });
    await ben.append({ id: "b1", role: "user", text: "ben's" });

    const report = await store.erase({ owner: "ana" });
    expect(report).toMatchObject({ method: "deleted+crypto-shredded", threads: 2, messages: 2 });
    expect(report.keyKept).toBeUndefined();
    expect(destroyed).toEqual(["ana"]);
    // Anything of Ana's sealed again (a backup restored, a late write) finds no key.
    const late = await store.create({ id: "ana-late", owner: "ana" }).catch((error: unknown) => error);
    expect(KeyNotFoundError.isInstance(late), String(late)).toBe(true);
    expect((await (await store.get("ben-1")).messages()).map((message) => message.id)).toEqual(["b1"]);

    // A second run finds nothing to delete and destroys again (a run killed before the destroy finishes it).
    const again = await store.erase({ owner: "ana" });
    expect(again).toMatchObject({ method: "deleted+crypto-shredded", threads: 0, bytes: 0 });
    expect(destroyed).toEqual(["ana", "ana"]);
  });

  it("keeps the keys, saying why, when kept forks share the owner's messages, in a scope, or with shredKey: false", async () => {
    const { options, destroyed } = vault();
    const store = storeOver(encryptingLogDriver(new MemoryLogDriver(), options));
    const parent = await store.create({ id: "ana-1", owner: "ana" });
    await parent.append({ id: "a1", role: "user", text: "ana's words" });
    await parent.fork({ id: "ben-copy", owner: "ben" });

    const shared = await store.erase({ owner: "ana" });
    expect(shared).toMatchObject({ method: "deleted", threads: 1 });
    expect(shared.keyKept).toContain("includeSharedForks");
    // Ben's copy of the prefix is sealed with Ana's key: it stays readable.
    expect((await (await store.get("ben-copy")).messages()).map((message) => message.id)).toEqual(["a1"]);

    const tenant = store.scope("tenant-a");
    await (await tenant.create({ id: "cy-1", owner: "cy" })).append({ role: "user", text: "cy's" });
    const scoped = await tenant.erase({ owner: "cy" });
    expect(scoped).toMatchObject({ method: "deleted", threads: 1 });
    expect(scoped.keyKept).toContain("scope");

    await (await store.create({ id: "dee-1", owner: "dee" })).append({ role: "user", text: "dee's" });
    const optedOut = await store.erase({ owner: "dee", shredKey: false });
    expect(optedOut).toMatchObject({ method: "deleted", threads: 1, keyKept: "shredKey: false" });
    expect(destroyed).toEqual([]);
  });

  for (const includeSharedForks of [false, true]) {
    it(`finds a fork another owner made after the plan, and ${includeSharedForks ? "erases it" : "keeps it, listed, with the key"}`, async () => {
      const { options, destroyed } = vault();
      let store: LocalStore | undefined;
      const driver = beforeFirstDelete(new MemoryLogDriver(), async () => {
        const parent = await (store as LocalStore).get("ana-1");
        await parent.fork({ id: "ben-late", owner: "ben" });
      });
      store = storeOver(encryptingLogDriver(driver, options));
      for (const id of ["ana-1", "ana-2"]) {
        await (await store.create({ id, owner: "ana" })).append({
          id: `${id}-m`,
          role: "user",
          text: "ana's",
        });
      }

      const report = await store.erase({ owner: "ana", includeSharedForks });
      if (includeSharedForks) {
        expect(report.erased.map((entry) => entry.id).sort()).toEqual(["ana-1", "ana-2", "ben-late"]);
        expect(report.method).toBe("deleted+crypto-shredded");
        expect((await store.list()).items).toEqual([]);
      } else {
        expect(report.erased.map((entry) => entry.id).sort()).toEqual(["ana-1", "ana-2"]);
        expect(report.keptShared.map((entry) => [entry.id, entry.owner])).toEqual([["ben-late", "ben"]]);
        expect(report).toMatchObject({ method: "deleted" });
        expect(report.keyKept).toContain("includeSharedForks");
        expect(destroyed).toEqual([]);
        // Ben's fork, made while Ana's threads were being deleted, still reads its prefix.
        const late = await store.get("ben-late");
        expect((await late.messages()).map((message) => message.id)).toEqual(["ana-1-m"]);
      }
    });
  }

  it("reports deleted, with no keyKept, on a store without per-owner keys", async () => {
    const store = storeOver(
      encryptingLogDriver(new MemoryLogDriver(), { keys: { k: randomBytes(32) }, current: "k" }),
    );
    await (await store.create({ id: "t", owner: "ana" })).append({ role: "user", text: "x" });
    const report = await store.erase({ owner: "ana" });
    expect(report).toMatchObject({ method: "deleted", threads: 1 });
    expect(report.keyKept).toBeUndefined();
  });

  it("leaves no plaintext of the erased threads in the process of an encrypted store, whose other owners still read", async () => {
    const marker = Buffer.from(`erase-${randomBytes(12).toString("hex")}`);
    const store = storeOver(
      encryptingLogDriver(new MemoryLogDriver(), { keys: { k1: randomBytes(32) }, current: "k1" }),
    );
    // Written and read in a function of its own, so that no variable of the test holds the plaintext.
    await (async () => {
      const text = (part: string) => `${marker.toString()}-${part}`;
      const ana = await store.create({
        id: "ana-1",
        owner: "ana",
        title: text("title"),
        metadata: { note: text("metadata") },
      });
      for (let index = 0; index < 3; index++) await ana.append({ role: "user", text: text(`m${index}`) });
      await ana.checkpoint(text("label"));
      await (await store.get("ana-1")).view({ maxMessages: 20 });
      const ben = await store.create({ id: "ben-1", owner: "ben", metadata: { note: "ben's" } });
      await ben.append({ role: "user", text: "ben's message" });
    })();
    // The store's caches hold what it sealed and opened (else the case would prove nothing).
    expect(await heapHolds(marker)).toBe(true);
    expect(await store.erase({ owner: "ana" })).toMatchObject({ method: "deleted", threads: 1 });
    expect(await heapHolds(marker)).toBe(false);
    const ben = await store.get("ben-1");
    expect(ben.metadata).toEqual({ note: "ben's" });
    expect((await ben.messages()).map((message) => message.contents)).toEqual([
      [{ type: "text", text: "ben's message" }],
    ]);
  });
});
