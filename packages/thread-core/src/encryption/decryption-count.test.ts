import { randomBytes } from "node:crypto";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import type { LogDriver, LogRecord, StoredRecord } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { EncryptionOwnerKeyProvider } from "../spec/encryption-options.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";
import { IntegrityError, KeyNotFoundError } from "./encryption-errors.js";

// Every AES-256-GCM decryption goes through node:crypto's createDecipheriv, and every HMAC through createHmac:
// counted there, so the test sees them themselves, whichever code path asks for them.
const crypto = createRequire(import.meta.url)("node:crypto") as Record<
  "createDecipheriv" | "createHmac",
  (...args: unknown[]) => unknown
>;
const originals = { createDecipheriv: crypto.createDecipheriv, createHmac: crypto.createHmac };
let decryptions = 0;
let hmacs = 0;

beforeAll(() => {
  crypto.createDecipheriv = (...args: unknown[]) => {
    decryptions++;
    return originals.createDecipheriv(...args);
  };
  crypto.createHmac = (...args: unknown[]) => {
    hmacs++;
    return originals.createHmac(...args);
  };
  syncBuiltinESMExports();
});

afterAll(() => {
  Object.assign(crypto, originals);
  syncBuiltinESMExports();
});

async function hmacsOf(work: () => Promise<unknown>): Promise<number> {
  const before = hmacs;
  await work();
  return hmacs - before;
}

async function decryptionsOf(work: () => Promise<unknown>): Promise<number> {
  const before = decryptions;
  await work();
  return decryptions - before;
}

/**
 * A memory backend that hands back a new copy of a record on every read, as fs (which reads its record file
 * again) and any store that parses what it reads do; `tamper` rewrites it on the way out.
 */
class CopyingMemoryDriver extends MemoryLogDriver {
  tamper: (record: LogRecord) => LogRecord = (record) => record;
  override async read(id: string): Promise<StoredRecord | undefined> {
    const record = await super.read(id);
    return record?.kind === "log" ? this.tamper(structuredClone(record)) : record;
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

describe("what an encrypted store decrypts", () => {
  const keys = { k: randomBytes(32) };

  it("an append opens nothing it has just sealed (the record, its end, the message)", async () => {
    const inner = new MemoryLogDriver();
    const store = storeOver(encryptingLogDriver(inner, { keys, current: "k" }));
    const thread = await store.create({ metadata: { topic: "tea" } });
    await thread.append({ role: "user", text: "first" });
    for (let index = 0; index < 5; index++) {
      expect(await decryptionsOf(() => thread.append({ role: "assistant", text: `reply ${index}` }))).toBe(0);
    }
    // What the append returned is the thread as stored: another store on the same keys reads the same.
    const again = storeOver(encryptingLogDriver(inner, { keys, current: "k" }));
    const read = await again.get(thread.id);
    expect(read.toJSON()).toMatchObject({ metadata: { topic: "tea" } });
    expect((await read.messages()).map((message) => message.contents)).toEqual(
      (await thread.messages()).map((message) => message.contents),
    );
  });

  it("a message read again is compared, not decrypted again, until its key is forgotten", async () => {
    const inner = new MemoryLogDriver();
    const writer = storeOver(encryptingLogDriver(inner, { keys, current: "k" }));
    const thread = await writer.create();
    await thread.append(
      Array.from({ length: 30 }, (_, index) => ({ role: "user" as const, text: `m ${index}` })),
    );
    // A second store on the same data: it has sealed none of these messages.
    const reader = storeOver(encryptingLogDriver(inner, { keys, current: "k" }));
    const read = await reader.get(thread.id);
    const first = await decryptionsOf(() => read.view({ maxMessages: 20 }));
    const again = await decryptionsOf(() => read.view({ maxMessages: 20 }));
    expect(first - again).toBe(20);
  });

  it("a record read back unchanged is compared, not decrypted again; a unit moved into it still fails", async () => {
    const inner = new CopyingMemoryDriver();
    const store = storeOver(encryptingLogDriver(inner, { keys, current: "k" }));
    const thread = await store.create({ metadata: { topic: "tea" } });
    await thread.append(
      Array.from({ length: 30 }, (_, index) => ({ role: "user" as const, text: `m ${index}` })),
    );
    await thread.view({ maxMessages: 20 });
    // The record is read again (a new object): its metadata and context are the ones opened before.
    expect(await decryptionsOf(() => thread.view({ maxMessages: 20 }))).toBe(0);
    expect((await store.get(thread.id)).toJSON()).toMatchObject({ metadata: { topic: "tea" } });
    // The metadata's unit, opened before, stored as the context: it is bound elsewhere, so it fails.
    inner.tamper = (record) => ({
      ...record,
      context: { ...record.context, $sealed: record.metadata.$sealed },
    });
    const error = await failure(store.get(thread.id));
    expect(IntegrityError.isInstance(error), String(error)).toBe(true);
  });

  it("a crypto-shredded owner's messages are never served from what was read before", async () => {
    const destroyed = new Set<string>();
    const ownerKeys = new Map<string, Buffer>();
    const options: EncryptionOwnerKeyProvider = {
      current: "v1",
      ownerKeyProvider: ({ owner, keyId }) => {
        if (destroyed.has(owner ?? "")) return undefined;
        const name = `${owner}/${keyId}`;
        if (!ownerKeys.has(name)) ownerKeys.set(name, randomBytes(32));
        return ownerKeys.get(name);
      },
      destroyOwnerKey: (owner) => {
        destroyed.add(owner);
      },
    };
    const driver = encryptingLogDriver(new MemoryLogDriver(), options);
    const store = storeOver(driver);
    const ana = await store.create({ id: "ana-1", owner: "ana" });
    await ana.append({ id: "a1", role: "user", text: "ana's secret" });
    const head = ((await store.driver.read("ana-1")) as { head: string }).head;
    // Read once, so its plaintext is remembered.
    expect((await driver.readSegment(head, 0, 1))[0]?.contents).toEqual([
      { type: "text", text: "ana's secret" },
    ]);
    await store.shredOwner("ana");
    const error = await failure(driver.readSegment(head, 0, 1));
    expect(KeyNotFoundError.isInstance(error), String(error)).toBe(true);
  });
});

describe("checking a thread's end (the MAC of its head and length)", () => {
  const keys = { k: randomBytes(32) };

  it("costs no HMAC for an end this store sealed or checked before; a cut of the last message still fails", async () => {
    const inner = new CopyingMemoryDriver();
    const store = storeOver(encryptingLogDriver(inner, { keys, current: "k" }));
    const thread = await store.create();
    await thread.append(
      Array.from({ length: 30 }, (_, index) => ({ role: "user" as const, text: `m ${index}` })),
    );
    await thread.append({ role: "assistant", text: "last" });
    // The record is read again (a new object) with the end the last append sealed: its messages were sealed
    // here too, so the view computes no HMAC at all.
    expect(await hmacsOf(() => thread.view({ maxMessages: 20 }))).toBe(0);
    // A second store on the same data checks the end once, then knows it.
    const reader = storeOver(encryptingLogDriver(inner, { keys, current: "k" }));
    const read = await reader.get(thread.id);
    await read.view({ maxMessages: 20 });
    expect(await hmacsOf(() => read.refresh())).toBe(0);
    // The last message cut: the record's length says one fewer, under the end sealed for the longer thread.
    inner.tamper = (record) => ({ ...record, length: record.length - 1 });
    const error = await failure(reader.get(thread.id));
    expect(IntegrityError.isInstance(error), String(error)).toBe(true);
  });
});
