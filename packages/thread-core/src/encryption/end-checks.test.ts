import { randomBytes } from "node:crypto";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import type { LogDriver, LogRecord, StoredRecord } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";
import { IntegrityError } from "./encryption-errors.js";

// Every HMAC goes through node:crypto's createHmac: counted there, whichever code path computes one.
const crypto = createRequire(import.meta.url)("node:crypto") as {
  createHmac: (...args: unknown[]) => unknown;
};
const original = crypto.createHmac;
let hmacs = 0;

beforeAll(() => {
  crypto.createHmac = (...args: unknown[]) => {
    hmacs++;
    return original(...args);
  };
  syncBuiltinESMExports();
});

afterAll(() => {
  crypto.createHmac = original;
  syncBuiltinESMExports();
});

async function hmacsOf(work: () => Promise<unknown>): Promise<number> {
  const before = hmacs;
  await work();
  return hmacs - before;
}

/** A memory backend that hands back a new copy of each record it reads; `tamper` rewrites it on the way out. */
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
    const error = await reader.get(thread.id).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(IntegrityError.isInstance(error), String(error)).toBe(true);
  });
});
