import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import type { LogThread } from "../local/log-thread.js";
import { StepCountingDriver } from "../streaming/step-counting-driver.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";

describe("an encrypting driver and a streamed reply's interim writes", () => {
  it("passes the interim hints of the begin and the batches to the driver it wraps, and not the end's", async () => {
    const inner = new StepCountingDriver();
    const driver = encryptingLogDriver(inner, { keys: { "2026-12": randomBytes(32) }, current: "2026-12" });
    const store = new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
    const thread = (await store.create({ id: "t" })) as LogThread;
    inner.writes = [];
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000, maxBatchBytes: 20 });
    await reply.write("a delta that fills a batch");
    await reply.end();
    // The reclaim of the landed batches follows (no hint: it is no write of the reply).
    expect(inner.writes).toEqual(["commit (interim)", "batch (interim)", "commit", "drop"]);
  });
});
