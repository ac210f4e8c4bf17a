import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import type { LogThread } from "../local/log-thread.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { CommitResult, LogChange } from "../spec/log-driver.js";
import { StepCountingDriver } from "../streaming/step-counting-driver.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";

/** A driver that reclaims a landed reply's batches in the end's commit, as redis and postgres do. */
class ReclaimingDriver extends StepCountingDriver {
  readonly reclaimsInCommit = true;
  override async commit(id: string, change: LogChange): Promise<CommitResult> {
    const result = await super.commit(id, change);
    if (change.reclaim) {
      this.writes.push("reclaim in commit");
      await MemoryLogDriver.prototype.dropSegment.call(this, change.reclaim);
    }
    return result;
  }
}

async function streamOneBatch(inner: StepCountingDriver): Promise<void> {
  const driver = encryptingLogDriver(inner, { keys: { "2026-12": randomBytes(32) }, current: "2026-12" });
  const store = new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
  const thread = (await store.create({ id: "t" })) as LogThread;
  inner.writes = [];
  const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000, maxBatchBytes: 20 });
  await reply.write("a delta that fills a batch");
  await reply.end();
}

describe("an encrypting driver and a streamed reply's interim writes", () => {
  it("passes the interim hints of the begin and the batches to the driver it wraps, and not the end's", async () => {
    const inner = new StepCountingDriver();
    await streamOneBatch(inner);
    // The reclaim of the landed batches follows (no hint: it is no write of the reply).
    expect(inner.writes).toEqual(["commit (interim)", "batch (interim)", "commit", "drop"]);
  });

  it("lets a driver that reclaims in its commit drop the landed batches in the end's commit", async () => {
    const inner = new ReclaimingDriver();
    await streamOneBatch(inner);
    expect(inner.writes).toEqual(["commit (interim)", "batch (interim)", "commit", "reclaim in commit"]);
  });
});
