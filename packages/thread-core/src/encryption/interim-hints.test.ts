import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import type { LogThread } from "../local/log-thread.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { Message } from "../message.js";
import type { CommitResult, LogChange, SegmentInfo, SegmentWriteOptions } from "../spec/log-driver.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";

/** A memory backend that notes which writes reach it marked `interim`. */
class HintNotingDriver extends MemoryLogDriver {
  writes: string[] = [];
  override async commit(id: string, change: LogChange): Promise<CommitResult> {
    this.writes.push(change.interim ? "commit (interim)" : "commit");
    return super.commit(id, change);
  }
  override async importSegment(
    segment: SegmentInfo,
    messages: Message[],
    from: number,
    options?: SegmentWriteOptions,
  ): Promise<void> {
    this.writes.push(options?.interim ? "batch (interim)" : "batch");
    return super.importSegment(segment, messages, from);
  }
}

describe("an encrypting driver and a streamed reply's interim writes", () => {
  it("passes the interim hints of the begin and the batches to the driver it wraps, and not the end's", async () => {
    const inner = new HintNotingDriver();
    const driver = encryptingLogDriver(inner, { keys: { "2026-12": randomBytes(32) }, current: "2026-12" });
    const store = new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
    const thread = (await store.create({ id: "t" })) as LogThread;
    inner.writes = [];
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000, maxBatchBytes: 20 });
    await reply.write("a delta that fills a batch");
    await reply.end();
    expect(inner.writes).toEqual(["commit (interim)", "batch (interim)", "commit"]);
  });
});
