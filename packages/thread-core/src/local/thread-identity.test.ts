import { describe, expect, it, vi } from "vitest";
import { createRegistry } from "../create-registry.js";
import { DelegatingThread } from "../delegating-thread.js";
import { createMemoryStore } from "../memory/memory-thread-type.js";
import { PlainStateThread } from "../store/plain-state-thread.js";
import { WorkflowThread } from "../workflow/workflow-thread.js";
import { LocalThread, LogThread } from "./log-thread.js";

const registry = createRegistry();

/** The classes as a second installed copy of thread-core has them: the same source, evaluated again. */
async function secondCopy() {
  vi.resetModules();
  const [logModule, workflowModule] = await Promise.all([
    import("./log-thread.js"),
    import("../workflow/workflow-thread.js"),
  ]);
  return { LogThread: logModule.LogThread, WorkflowThread: workflowModule.WorkflowThread };
}

describe("LogThread.isInstance and WorkflowThread.isInstance", () => {
  it("tell log threads and workflows apart from each other and from other threads", async () => {
    const store = createMemoryStore({ registry });
    const log = await store.create();
    const workflow = await store.create("workflow", { threads: ["main"] });
    const plain = new PlainStateThread({ $type: "acme.note", id: "note" }, store);
    // A wrapper is not what it wraps: it answers only through the Thread contract.
    const wrapper = new DelegatingThread(log);

    expect([log, workflow, plain, wrapper].map((thread) => LogThread.isInstance(thread))).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect([log, workflow, plain, wrapper].map((thread) => WorkflowThread.isInstance(thread))).toEqual([
      false,
      true,
      false,
      false,
    ]);
    expect(LogThread.isInstance((workflow as WorkflowThread).thread("main"))).toBe(true);
    for (const value of [
      undefined,
      null,
      0,
      "log",
      {},
      { record: {}, iterate() {} },
      JSON.parse(JSON.stringify(log)),
    ]) {
      expect(LogThread.isInstance(value)).toBe(false);
      expect(WorkflowThread.isInstance(value)).toBe(false);
    }
  });

  it("hold across two installed copies of thread-core, where instanceof does not", async () => {
    const copy = await secondCopy();
    expect(copy.LogThread).not.toBe(LogThread);
    const store = createMemoryStore({ registry });
    const log = await store.create();
    const workflow = await store.create("workflow", { threads: ["main"] });
    expect(log instanceof copy.LogThread).toBe(false);
    expect(copy.LogThread.isInstance(log)).toBe(true);
    expect(workflow instanceof copy.WorkflowThread).toBe(false);
    expect(copy.WorkflowThread.isInstance(workflow)).toBe(true);
    expect(copy.LogThread.isInstance(workflow)).toBe(false);
  });

  it("keep LocalThread as a deprecated alias of LogThread", async () => {
    const log = await createMemoryStore({ registry }).create();
    expect(LocalThread).toBe(LogThread);
    expect(log).toBeInstanceOf(LocalThread);
    expect(LocalThread.isInstance(log)).toBe(true);
  });
});
