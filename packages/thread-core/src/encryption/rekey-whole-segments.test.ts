import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import type { MessageRewrite } from "../spec/log-driver.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";
import { WHOLE_SEGMENT_BYTES } from "./rekey-store.js";

/** A memory backend that says its rewrites copy whole segments (as fs's do), noting each call's size. */
class WholeSegmentDriver extends MemoryLogDriver {
  readonly rewritesWholeSegments = true;
  readonly calls: number[] = [];
  override async close(): Promise<void> {}
  override async rewriteMessages(segment: string, rewrites: readonly MessageRewrite[]): Promise<boolean[]> {
    this.calls.push(rewrites.length);
    return super.rewriteMessages(segment, rewrites);
  }
}

const storeWith = (inner: MemoryLogDriver, encryption: EncryptionOptions) =>
  new LocalStore({
    driver: encryptingLogDriver(inner, encryption),
    registry: createRegistry(),
    url: "memory:",
  });

describe("rekey on a driver whose rewrites copy whole segments", () => {
  it("gathers a segment's rewrites across batches, up to WHOLE_SEGMENT_BYTES a call", async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const inner = new WholeSegmentDriver();
    const thread = await storeWith(inner, { keys: { old: oldKey }, current: "old" }).create({ id: "big" });
    // Texts of a quarter of the bound, stored as base64 (a third of it): a call carries three messages.
    const text = "x".repeat(WHOLE_SEGMENT_BYTES / 4);
    for (let index = 0; index < 10; index++) await thread.append({ id: `m${index}`, role: "user", text });
    const report = await storeWith(inner, { keys: { old: oldKey, new: newKey }, current: "new" }).rekey({
      batchSize: 1,
    });
    expect(report).toMatchObject({ complete: true, remaining: {}, rewritten: { old: 13 } });
    // One message a read: gathered until the bound is reached, then the rest at the segment's end.
    expect(inner.calls).toEqual([3, 3, 3, 1]);
  });
});
