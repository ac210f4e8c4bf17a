import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { UnsupportedOperationError } from "../errors.js";
import { LocalStore } from "../local/local-store.js";
import type { LogDriver, LogRecord, StoredRecord } from "../local/log-driver.js";
import type { LogThread } from "../local/log-thread.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { Message } from "../message.js";
import type { EncryptionOwnerKeyProvider } from "../spec/encryption-options.js";
import { encryptingLogDriver, keyRingOf } from "./encrypting-log-driver.js";
import { DecryptionError, KeyNotFoundError } from "./encryption-errors.js";
import { ownerShredding } from "./owner-shredding.js";
import { heapHolds } from "./test-support/heap-holds.js";

/** A key store with one key per owner and id, and a destroy, as a KMS would offer. */
function vault() {
  const keys = new Map<string, Buffer>();
  const destroyed = new Set<string>();
  const options: EncryptionOwnerKeyProvider = {
    current: "v1",
    ownerKeyProvider: ({ owner, keyId }) => {
      if (destroyed.has(owner ?? "")) return undefined;
      const name = `${owner ?? ""}/${keyId}`;
      if (!keys.has(name)) keys.set(name, randomBytes(32));
      return keys.get(name);
    },
    destroyOwnerKey: (owner) => {
      destroyed.add(owner);
    },
  };
  return { options, keys };
}

/** A memory backend that notes whose key sealed each message written outside a commit. */
class SegmentWritesDriver extends MemoryLogDriver {
  owners: unknown[] = [];
  override async importSegment(...args: Parameters<MemoryLogDriver["importSegment"]>): Promise<void> {
    for (const message of args[1]) this.owners.push(unitOwner(message));
    return super.importSegment(...args);
  }
}

/**
 * A memory backend that answers a read with the caller's `known` record (the same object) while the stored
 * one still has its revision and head, as `LogDriver.read` allows and Redis, PostgreSQL and fs do.
 */
class KnownAnsweringDriver extends MemoryLogDriver {
  override async read(id: string, known?: LogRecord): Promise<StoredRecord | undefined> {
    const stored = await super.read(id);
    const same = stored?.kind === "log" && stored.revision === known?.revision && stored.head === known.head;
    return same ? known : stored;
  }
}

function storeOver(driver: LogDriver): LocalStore {
  return new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

function unitOwner(message: Message): unknown {
  return (message.contents[0] as unknown as { owner?: string }).owner;
}

/** A key provider whose answers can be held back (`hold`) until `release`: a slow KMS. */
function slowVault() {
  const { options } = vault();
  const provide = options.ownerKeyProvider;
  let gate: Promise<void> | undefined;
  let open: () => void = () => undefined;
  let asked: () => void = () => undefined;
  const control = {
    /** Holds the next answers back; resolves once the provider is asked. */
    hold(): Promise<void> {
      gate = new Promise<void>((resolve) => (open = resolve));
      return new Promise<void>((resolve) => (asked = resolve));
    },
    release(): void {
      gate = undefined;
      open();
    },
  };
  const slow: EncryptionOwnerKeyProvider = {
    ...options,
    ownerKeyProvider: async (request) => {
      const bytes = await provide(request);
      if (gate) {
        asked();
        await gate;
      }
      return bytes;
    },
  };
  return { options: slow, control };
}

describe("per-owner keys", () => {
  it("seal each owner's threads with that owner's key, and shredding one owner leaves the other readable", async () => {
    const inner = new MemoryLogDriver();
    const { options } = vault();
    const store = storeOver(encryptingLogDriver(inner, options));
    const ana = await store.create({ id: "ana-1", owner: "ana", title: "Ana's", metadata: { a: 1 } });
    await ana.append({ id: "a1", role: "user", text: "ana's secret" });
    const ben = await store.create({ id: "ben-1", owner: "ben" });
    await ben.append({ id: "b1", role: "user", text: "ben's" });
    const anaHead = ((await inner.read("ana-1")) as { head: string }).head;
    const benHead = ((await inner.read("ben-1")) as { head: string }).head;
    expect(unitOwner((await inner.readSegment(anaHead, 0, 1))[0] as Message)).toBe("ana");
    expect(unitOwner((await inner.readSegment(benHead, 0, 1))[0] as Message)).toBe("ben");

    expect(ownerShredding(store.driver)?.canDestroy).toBe(true);
    await store.shredOwner("ana");
    const error = await failure(ana.messages());
    expect(KeyNotFoundError.isInstance(error), String(error)).toBe(true);
    expect((error as KeyNotFoundError).owner).toBe("ana");
    expect(String(error)).toContain("crypto-shredded");
    expect(KeyNotFoundError.isInstance(await failure(store.get("ana-1")))).toBe(true);
    expect((await ben.messages()).map((message) => message.id)).toEqual(["b1"]);
    const [listed] = (await store.list({ owner: "ana" })).items;
    expect(listed).toMatchObject({ id: "ana-1", owner: "ana", metadata: {}, messageCount: 1 });
    expect(listed?.title).toBeUndefined();
  });

  it("a record read before its owner was shredded is not served again when the store answers with it", async () => {
    const { options } = vault();
    const store = storeOver(encryptingLogDriver(new KnownAnsweringDriver(), options));
    const ana = await store.create({ id: "ana-1", owner: "ana", metadata: { plan: "secret" } });
    await ana.append({ id: "a1", role: "user", text: "ana's secret" });
    await ana.checkpoint("before the trip");
    // Read back through the store (which answers with the stored record it was handed): opened, remembered.
    await ana.refresh();
    const labels = (await ana.history()).map(
      (event) => event.kind === "checkpoint" && event.checkpoint.label,
    );
    expect(labels).toContain("before the trip");
    await store.shredOwner("ana");
    // The stored record is the very object opened before; its key is gone, so nothing of it opens.
    const refreshed = await failure(ana.refresh());
    expect(KeyNotFoundError.isInstance(refreshed), String(refreshed)).toBe(true);
    const history = await failure(ana.history());
    expect(KeyNotFoundError.isInstance(history), String(history)).toBe(true);
  });

  it("an append after its owner was shredded never seals again what was opened before, though a new key comes", async () => {
    // A key service that makes an owner's key on first use, also after the old one was destroyed.
    const keys = new Map<string, Buffer>();
    const options: EncryptionOwnerKeyProvider = {
      current: "v1",
      ownerKeyProvider: ({ owner, keyId }) => {
        const name = `${owner ?? ""}/${keyId}`;
        if (!keys.has(name)) keys.set(name, randomBytes(32));
        return keys.get(name);
      },
      destroyOwnerKey: (owner) => {
        for (const name of keys.keys()) if (name.startsWith(`${owner}/`)) keys.delete(name);
      },
    };
    const store = storeOver(encryptingLogDriver(new KnownAnsweringDriver(), options));
    const ana = await store.create({ id: "ana-2", owner: "ana", metadata: { plan: "secret" } });
    await ana.append({ id: "a1", role: "user", text: "ana's secret" });
    await store.shredOwner("ana");
    // The thread's record was sealed under the destroyed key: the new key opens none of it, so the append
    // fails instead of sealing the remembered metadata and context under the new key.
    const appended = await failure(ana.append({ id: "a2", role: "user", text: "after" }));
    expect(DecryptionError.isInstance(appended), String(appended)).toBe(true);
    const read = await failure(store.get("ana-2"));
    expect(DecryptionError.isInstance(read), String(read)).toBe(true);
  });

  it("streamed replies' batches and imported threads are sealed with the owner's key", async () => {
    const inner = new SegmentWritesDriver();
    const { options } = vault();
    const store = storeOver(encryptingLogDriver(inner, options));
    const source = storeOver(new MemoryLogDriver());
    const plain = await source.create({ id: "t", owner: "ana" });
    await plain.append({ id: "m1", role: "user", text: "imported" });
    const imported = await store.import(await source.export("t"));
    const segment = ((await inner.read(imported.id)) as { head: string; length: number }).head;
    const info = await inner.segment(segment);
    const base = info?.base?.segment as string;
    expect(unitOwner((await inner.readSegment(base, 0, 1))[0] as Message)).toBe("ana");

    inner.owners = [];
    // A one-byte bound flushes each delta as a batch (deltas still buffered at `end` land only in the message).
    const reply = await (imported as LogThread).beginMessage({ role: "assistant", maxBatchBytes: 1 });
    await reply.write({ type: "text", text: "streamed" });
    const message = await reply.end();
    expect(message.contents).toEqual([{ type: "text", text: "streamed" }]);
    expect(inner.owners.length).toBeGreaterThan(0);
    expect(new Set(inner.owners)).toEqual(new Set(["ana"]));
    await store.shredOwner("ana");
    expect(KeyNotFoundError.isInstance(await failure(imported.messages()))).toBe(true);
  });

  it("shredOwner refuses on a store that cannot destroy keys, naming what to give", async () => {
    const whole = storeOver(
      encryptingLogDriver(new MemoryLogDriver(), { keys: { k: randomBytes(32) }, current: "k" }),
    );
    expect(ownerShredding(whole.driver)).toBeUndefined();
    const refused = await failure(whole.shredOwner("ana"));
    expect(UnsupportedOperationError.isInstance(refused), String(refused)).toBe(true);
    expect(String(refused)).toContain("ownerKeyProvider");
    const { options } = vault();
    const { destroyOwnerKey: _destroy, ...withoutDestroy } = options;
    const undestroyable = storeOver(encryptingLogDriver(new MemoryLogDriver(), withoutDestroy));
    expect(ownerShredding(undestroyable.driver)?.canDestroy).toBe(false);
    expect(String(await failure(undestroyable.shredOwner("ana")))).toContain("destroyOwnerKey");
  });

  it("neither inspect nor JSON of the store shows an owner's key, once fetched", async () => {
    const { options, keys } = vault();
    const store = storeOver(encryptingLogDriver(new MemoryLogDriver(), options));
    const thread = await store.create({ id: "t", owner: "ana" });
    await thread.append({ role: "user", text: "x" });
    expect(keys.size).toBeGreaterThan(0);
    const shown = [inspect(store, { depth: 8, showHidden: true }), JSON.stringify(store.driver)].join("\n");
    for (const key of keys.values()) {
      expect(shown).not.toContain(key.toString("hex"));
      expect(shown).not.toContain(key.toString("base64"));
    }
  });

  it("a scope's store reaches the same keys", async () => {
    const { options } = vault();
    const store = storeOver(encryptingLogDriver(new MemoryLogDriver(), options));
    const tenant = store.scope("tenant-a");
    const thread = await tenant.create({ id: "t", owner: "ana" });
    await thread.append({ role: "user", text: "x" });
    await tenant.shredOwner("ana");
    expect(KeyNotFoundError.isInstance(await failure(tenant.get("t")))).toBe(true);
    expect((await tenant.list()).items.map((item) => item.id)).toEqual(["t"]);
  });

  it("a shred leaves no plaintext of the owner's threads in the process: no cache keeps their metadata, title, context or messages", async () => {
    const marker = Buffer.from(`shred-${randomBytes(12).toString("hex")}`);
    const store = storeOver(encryptingLogDriver(new MemoryLogDriver(), vault().options));
    // Written and read in a function of its own, so that no variable of the test holds the plaintext.
    await (async () => {
      const text = (part: string) => `${marker.toString()}-${part}`;
      const thread = await store.create({
        id: "ana-1",
        owner: "ana",
        title: text("title"),
        metadata: { note: text("metadata") },
      });
      for (let index = 0; index < 3; index++) await thread.append({ role: "user", text: text(`m${index}`) });
      await thread.checkpoint(text("label"));
      const again = await store.get("ana-1");
      await again.view({ maxMessages: 20 });
      await again.messages();
    })();
    // The store's caches hold what it sealed and opened (else the case below would prove nothing).
    expect(await heapHolds(marker)).toBe(true);

    await store.shredOwner("ana");
    expect(await heapHolds(marker)).toBe(false);
  });

  it("a shred leaves no plaintext sealed under the owner's key in a thread that has another owner now", async () => {
    const marker = Buffer.from(`shred-${randomBytes(12).toString("hex")}`);
    const store = storeOver(encryptingLogDriver(new MemoryLogDriver(), vault().options));
    await (async () => {
      const thread = await store.create({ id: "t", owner: "ana", metadata: { note: `${marker}-metadata` } });
      await thread.append({ role: "user", text: "hi" });
      // The metadata stays sealed under ana's key (the README's limits): bob owns the thread now.
      await thread.update({ owner: "bob" });
      await thread.append({ role: "user", text: "hi again" });
    })();
    expect(await heapHolds(marker)).toBe(true);
    await store.shredOwner("ana");
    expect(await heapHolds(marker)).toBe(false);
  });

  it("a read whose key was being fetched during a shred keeps no plaintext once it ends", async () => {
    const marker = Buffer.from(`shred-${randomBytes(12).toString("hex")}`);
    const { options, control } = slowVault();
    const inner = new MemoryLogDriver();
    const driver = encryptingLogDriver(inner, options);
    const store = storeOver(driver);
    const { reading } = await (async () => {
      const thread = await store.create({ id: "t", owner: "ana" });
      for (let index = 0; index < 3; index++)
        await thread.append({ role: "user", text: `${marker}-m${index}` });
      const { head } = (await inner.read("t")) as LogRecord;
      // As in a process that has not fetched ana's key yet: its next read asks the (slow) provider.
      keyRingOf(driver)?.forgetOwner("ana");
      const asked = control.hold();
      const read = driver.readSegment(head, 0, 3).then((messages) => messages.length);
      await asked;
      return { reading: read };
    })();
    await store.shredOwner("ana");
    control.release();
    // The read may end either way (the key it was given opens the units); it keeps nothing after.
    await reading.catch(() => undefined);
    expect(await heapHolds(marker)).toBe(false);
  });
});
