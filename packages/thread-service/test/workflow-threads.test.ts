import { messageText, openStore, type Thread } from "@skein/thread-core";
import { runTarget } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { FencedThread } from "../src/fenced-thread.js";
import { createThreadService, LeaseLostError } from "../src/index.js";
import { leaseDocumentType } from "../src/lease-document.js";
import { ThreadLeases } from "../src/thread-lease.js";
import { scriptedRunner } from "./fake-runners.js";

type Workflow = Thread & { thread(key?: string): Thread };

describe("thread-service with a workflow thread", () => {
  it("runs messages on a workflow whose main sub-thread counts revisions apart from the workflow", async () => {
    const store = await openStore("memory:");
    const service = createThreadService({ store, runner: scriptedRunner() });
    const { threadId } = await service.createThread({ type: "workflow", typeOptions: { threads: ["main"] } });
    // Three messages on main straight away: its revision runs ahead of the workflow's.
    const main = ((await store.get(threadId)) as Workflow).thread("main");
    for (const text of ["one", "two", "three"]) await main.append({ role: "user", text });
    const workflow = (await store.get(threadId)) as Workflow;
    expect(workflow.thread("main").revision).not.toBe(workflow.revision);
    await service.send(threadId, "hello");
    await service.send(threadId, "again");
    const stored = (await store.get(threadId)) as Workflow;
    expect((await stored.messages()).map(messageText)).toEqual([
      "one",
      "two",
      "three",
      "hello",
      "echo: hello",
      "again",
      "echo: again",
    ]);
    await service.close();
    await store.close();
  });

  it("refuses a stale holder's write to the main sub-thread it reached through the fence", async () => {
    const store = await openStore("memory:");
    store.registry.ensure(leaseDocumentType);
    const workflow = (await store.create("workflow", { threads: ["main"] })) as Workflow;
    const leases = new ThreadLeases(store, "instance-1", 60_000);
    const lease = await leases.tryAcquire(workflow.id);
    if (!lease) throw new Error("the lease of a new thread is free");
    const fenced = new FencedThread(workflow, lease, "message-1");
    const main = runTarget(fenced) as Thread;
    await main.append({ role: "user", text: "while held" });
    // Instance 2 takes the lease over (instance 1 was frozen: by its own clock the lease still runs) and writes.
    const current = await leases.read(workflow.id);
    await new ThreadLeases(store, "instance-2", 60_000).write(
      workflow.id,
      (current?.revision ?? 0) + 1,
      "instance-2",
    );
    await ((await store.get(workflow.id)) as Workflow)
      .thread("main")
      .append({ role: "user", text: "new holder" });
    await expect(main.append({ role: "assistant", text: "stale" })).rejects.toBeInstanceOf(LeaseLostError);
    expect((await (await store.get(workflow.id)).messages()).map(messageText)).toEqual([
      "while held",
      "new holder",
    ]);
    await lease.release();
    await store.close();
  });
});
