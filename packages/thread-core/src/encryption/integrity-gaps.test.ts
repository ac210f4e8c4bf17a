import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import type { LogDriver, LogRecord, StoredRecord } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { Message } from "../message.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";
import { IntegrityError } from "./encryption-errors.js";

/** A memory backend whose stored records and segments an attacker rewrites on the way out. */
class TamperedMemoryDriver extends MemoryLogDriver {
  tamperRecord: (record: LogRecord) => LogRecord = (record) => record;
  tamperSegment: (messages: Message[]) => Message[] = (messages) => messages;
  override async read(id: string): Promise<StoredRecord | undefined> {
    // No `known` shortcut: every read shows the tampered record.
    const record = await super.read(id);
    return record?.kind === "log" ? this.tamperRecord(structuredClone(record)) : record;
  }
  override async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    const all = this.tamperSegment(await super.readSegment(id, 0, Number.MAX_SAFE_INTEGER));
    return all.slice(from, to);
  }
}

const keys = { "2026-12": randomBytes(32) };

function storeOver(driver: LogDriver): LocalStore {
  return new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

async function threeMessages(inner: MemoryLogDriver) {
  const thread = await storeOver(encryptingLogDriver(inner, { keys, current: "2026-12" })).create({
    id: "t",
  });
  await thread.append([
    { id: "a", role: "user", text: "one" },
    { id: "b", role: "assistant", text: "two" },
    { id: "c", role: "user", text: "three" },
  ]);
  // A fresh store each read: nothing remembered from the writes.
  return () => storeOver(encryptingLogDriver(inner, { keys, current: "2026-12" })).get("t");
}

describe("integrity of an encrypted log's end and timestamps", () => {
  it("a cut of a segment's last messages, with the record's length made to match, fails with IntegrityError", async () => {
    const inner = new TamperedMemoryDriver();
    const open = await threeMessages(inner);
    expect((await (await open()).messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    for (const cut of [1, 2]) {
      inner.tamperSegment = (messages) => messages.slice(0, messages.length - cut);
      inner.tamperRecord = (record) => ({ ...record, length: record.length - cut });
      const error = await failure(open().then((thread) => thread.messages()));
      expect(IntegrityError.isInstance(error), String(error)).toBe(true);
      expect(String(error)).toContain("end of thread");
    }
  });

  it("a changed message createdAt fails with IntegrityError", async () => {
    const inner = new TamperedMemoryDriver();
    const open = await threeMessages(inner);
    inner.tamperSegment = (messages) =>
      messages.map((message, index) =>
        index === 1 ? { ...message, createdAt: "2020-01-01T00:00:00.000Z" } : message,
      );
    const error = await failure(open().then((thread) => thread.messages()));
    expect(IntegrityError.isInstance(error), String(error)).toBe(true);
  });

  it("a changed thread createdAt fails with IntegrityError", async () => {
    const inner = new TamperedMemoryDriver();
    const open = await threeMessages(inner);
    inner.tamperRecord = (record) => ({ ...record, createdAt: "2020-01-01T00:00:00.000Z" });
    const error = await failure(open());
    expect(IntegrityError.isInstance(error), String(error)).toBe(true);
  });

  it("the end follows appends, rollbacks, context changes and forks, and a retried append stamped anew is no conflict", async () => {
    const inner = new MemoryLogDriver();
    const store = storeOver(encryptingLogDriver(inner, { keys, current: "2026-12" }));
    const thread = await store.create({ id: "t", owner: "ana" });
    await thread.append({ id: "a", role: "user", text: "one" });
    const checkpoint = await thread.checkpoint("one");
    await thread.append({ id: "b", role: "user", text: "two" });
    await thread.rollback(checkpoint);
    await thread.update({ title: "renamed", context: { memory: { n: 1 } } });
    await thread.append({ id: "c", role: "user", text: "three" });
    // The same message again with another timestamp (a retry): equal, so nothing is written.
    await thread.append({ id: "c", role: "user", text: "three", createdAt: "2026-01-01T00:00:00.000Z" });
    const fork = await thread.fork();
    await fork.append({ id: "d", role: "user", text: "four" });
    const fresh = storeOver(encryptingLogDriver(inner, { keys, current: "2026-12" }));
    expect((await (await fresh.get("t")).messages()).map((message) => message.id)).toEqual(["a", "c"]);
    expect((await (await fresh.get(fork.id)).messages()).map((message) => message.id)).toEqual([
      "a",
      "c",
      "d",
    ]);
  });
});

describe("threads written before encryption was turned on", () => {
  async function plainThread(inner: MemoryLogDriver) {
    const plain = storeOver(inner);
    const thread = await plain.create({ id: "old", owner: "ana", title: "Old", metadata: { m: "PLAIN" } });
    await thread.append([
      { id: "a", role: "user", text: "written in clear" },
      { id: "b", role: "assistant", text: "also clear" },
    ]);
    await thread.checkpoint("clear label");
  }

  it("read as IntegrityError, unless the store opens them in the allowPlaintext migration window", async () => {
    const inner = new MemoryLogDriver();
    await plainThread(inner);
    const strict = storeOver(encryptingLogDriver(inner, { keys, current: "2026-12" }));
    expect(IntegrityError.isInstance(await failure(strict.get("old")))).toBe(true);

    const window = storeOver(encryptingLogDriver(inner, { keys, current: "2026-12", allowPlaintext: true }));
    const thread = await window.get("old");
    expect(thread.metadata).toEqual({ m: "PLAIN" });
    const labels = (await thread.history()).flatMap((event) =>
      event.kind === "checkpoint" ? [event.checkpoint.label] : [],
    );
    expect(labels).toEqual(["clear label"]);
    // Writes in the window are sealed, beside the units still in clear.
    await thread.append({ id: "c", role: "user", text: "sealed now" });
    const again = await storeOver(
      encryptingLogDriver(inner, { keys, current: "2026-12", allowPlaintext: true }),
    ).get("old");
    expect((await again.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    const record = (await inner.read("old")) as LogRecord;
    // The append sealed the context it found in clear, beside the thread's first end.
    expect(Object.keys(record.context).sort()).toEqual(["$catalogue", "$sealed"]);
    expect(typeof record.end).toBe("string");
    const stored = await inner.readSegment(record.head, 0, 10);
    expect(JSON.stringify(stored)).not.toContain("sealed now");
    expect(JSON.stringify(stored)).toContain("written in clear");
  });

  it("a sealed unit replaced by plaintext still fails in the window when the message was sealed", async () => {
    const inner = new TamperedMemoryDriver();
    await threeMessages(inner);
    inner.tamperSegment = (messages) =>
      messages.map((message, index) =>
        index === 1 ? { ...message, contents: [{ type: "skein.sealed", forged: true } as never] } : message,
      );
    const window = storeOver(encryptingLogDriver(inner, { keys, current: "2026-12", allowPlaintext: true }));
    const error = await failure((await window.get("t")).messages());
    expect(IntegrityError.isInstance(error), String(error)).toBe(true);
  });
});
