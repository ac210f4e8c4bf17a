import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { LogDriver, SegmentInfo } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import { caught } from "../testing/suite-context.js";
import { encryptedStoreOver } from "./encrypted-test-store.js";
import { IntegrityError } from "./encryption-errors.js";

const keys = { "2026-12": randomBytes(32) };

const storeOver = (driver: LogDriver) => encryptedStoreOver(driver, keys, "2026-12");

/** A thread "t" of three messages; answers its stored head. */
async function threeMessages(inner: MemoryLogDriver): Promise<string> {
  const thread = await storeOver(inner).create({ id: "t" });
  await thread.append([
    { id: "a", role: "user", text: "one" },
    { id: "b", role: "assistant", text: "two" },
    { id: "c", role: "user", text: "three" },
  ]);
  const record = await inner.read("t");
  if (record?.kind !== "log") throw new Error("no log record");
  return record.head;
}

/**
 * Moves the stored thread onto a new head segment continuing `base` at `offset` and starting at `start`,
 * without keys (as adapter-fs's lock takeover does, or an attacker would): the record keeps the end it had.
 */
async function moveHead(
  inner: MemoryLogDriver,
  base: string,
  offset: number,
  start: number,
): Promise<string> {
  const record = await inner.read("t");
  if (record?.kind !== "log") throw new Error("no log record");
  const newHead: SegmentInfo = {
    id: `moved-${Math.random().toString(36).slice(2)}`,
    base: { segment: base, offset },
    start,
    createdAt: new Date().toISOString(),
  };
  await inner.commit("t", { expectHead: record.head, newHead });
  return newHead.id;
}

describe("an encrypted thread moved by its store onto an empty head that continues the old one", () => {
  it("reads as written through such heads, two in a row, and the next append signs the new head", async () => {
    const inner = new MemoryLogDriver();
    const first = await threeMessages(inner);
    const second = await moveHead(inner, first, 3, 3);
    await moveHead(inner, second, 0, 3);
    const thread = await storeOver(inner).get("t");
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    await thread.append({ id: "d", role: "assistant", text: "four" });
    const again = await storeOver(inner).get("t");
    const messages = await again.messages();
    expect(messages.map((message) => message.id)).toEqual(["a", "b", "c", "d"]);
    expect(messages.at(-1)?.contents).toEqual([{ type: "text", text: "four" }]);
  });

  it("fails with IntegrityError when the empty head's base ends below the signed length (a cut disguised as a move)", async () => {
    for (const start of [3, 1]) {
      const inner = new MemoryLogDriver();
      const first = await threeMessages(inner);
      // Continuing the old head after its first message only: the last two are cut from the thread.
      await moveHead(inner, first, 1, start);
      const error = await caught(storeOver(inner).get("t"));
      expect(IntegrityError.isInstance(error), `start ${start}: ${String(error)}`).toBe(true);
      expect(String(error)).toContain("end of thread");
    }
  });

  it("fails with IntegrityError when the moved head is not empty, or its base ends past the signed length", async () => {
    const inner = new MemoryLogDriver();
    const first = await threeMessages(inner);
    // The old head's base offset past its messages: the record claims a fourth, which nothing signed.
    await moveHead(inner, first, 4, 4);
    expect(IntegrityError.isInstance(await caught(storeOver(inner).get("t")))).toBe(true);
    // Over a head that starts below the length it holds messages of its own, unsigned.
    const other = new MemoryLogDriver();
    const head = await threeMessages(other);
    await moveHead(other, head, 2, 2);
    const record = await other.read("t");
    if (record?.kind !== "log") throw new Error("no log record");
    await other.commit("t", {
      expectHead: record.head,
      append: [{ id: "x", role: "user", createdAt: new Date().toISOString(), contents: [] }],
    });
    expect(IntegrityError.isInstance(await caught(storeOver(other).get("t")))).toBe(true);
  });
});
