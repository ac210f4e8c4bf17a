import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import type { LogThread } from "../local/log-thread.js";
import { StepCountingDriver } from "./step-counting-driver.js";
import { StreamInProgressError } from "./stream-errors.js";

async function threadOn(driver: StepCountingDriver): Promise<{ store: LocalStore; thread: LogThread }> {
  const store = new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
  const thread = (await store.create({ id: "t" })) as LogThread;
  await thread.append({ role: "user", text: "a question" });
  driver.reset();
  return { store, thread };
}

describe("the store steps of a streamed reply", () => {
  it("a reply that ends within one batch: one commit to begin (on the record the thread holds), one commit to end", async () => {
    const driver = new StepCountingDriver();
    const { thread } = await threadOn(driver);
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000 });
    await reply.write("an answer ");
    await reply.write("in two deltas");
    const message = await reply.end();
    expect(message.contents).toEqual([{ type: "text", text: "an answer in two deltas" }]);
    // No read and no id lookup at begin, no empty segment, no read at end, and no batch: the deltas still
    // buffered land in the message alone (followers complete from it), so there is no segment to reclaim.
    expect(driver.steps).toEqual({ read: 0, locate: 0, commit: 2, importSegment: 0, dropSegment: 0 });
    expect(driver.writes).toEqual(["commit (interim)", "commit"]);
    expect((await thread.messages()).map((each) => each.status)).toEqual([undefined, undefined]);
  });

  it("a reply that fails within one batch lands interrupted without a batch either", async () => {
    const driver = new StepCountingDriver();
    const { thread } = await threadOn(driver);
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000 });
    await reply.write("half an answer");
    const message = await reply.fail(new Error("the model went away"));
    expect(message).toMatchObject({
      status: "interrupted",
      contents: [
        { type: "text", text: "half an answer" },
        { type: "error", message: "the model went away" },
      ],
    });
    expect(driver.steps).toEqual({ read: 0, locate: 0, commit: 2, importSegment: 0, dropSegment: 0 });
  });

  it("a writer that ends with contents of its own writes the last deltas as a batch first, for followers", async () => {
    const driver = new StepCountingDriver();
    const { thread } = await threadOn(driver);
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000 });
    await reply.write("an answer");
    const message = await reply.end({ contents: [{ type: "text", text: "an answer, reworded" }] });
    expect(message.contents).toEqual([{ type: "text", text: "an answer, reworded" }]);
    expect(driver.writes).toEqual(["commit (interim)", "batch (interim)", "commit", "drop"]);
  });

  it("a reply that fills a batch: the batch is written, then the message lands with the rest and the batches go", async () => {
    const driver = new StepCountingDriver();
    const { thread } = await threadOn(driver);
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000, maxBatchBytes: 40 });
    await reply.write("a delta that fills the batch by itself ");
    const [, streaming] = await thread.messages();
    expect(streaming).toMatchObject({ status: "streaming", contents: [{ type: "text" }] });
    driver.reset();
    await reply.write("and a tail");
    const message = await reply.end();
    expect(message.contents).toEqual([
      { type: "text", text: "a delta that fills the batch by itself and a tail" },
    ]);
    expect(driver.steps).toEqual({ read: 0, locate: 0, commit: 1, importSegment: 0, dropSegment: 1 });
    expect(driver.writes).toEqual(["commit", "drop"]);
  });

  it("end waits for the batch being written, lands after it and reclaims it; a batch queued behind it is not written", async () => {
    const driver = new StepCountingDriver();
    const { thread } = await threadOn(driver);
    driver.importDelayMs = 30;
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 1 });
    await reply.write("one, ");
    await new Promise((resolve) => setTimeout(resolve, 10)); // its timed batch is being written
    await reply.write("two, ");
    await new Promise((resolve) => setTimeout(resolve, 10)); // its batch waits behind the first
    await reply.write("three");
    const message = await reply.end();
    expect(message.contents).toEqual([{ type: "text", text: "one, two, three" }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(driver.writes).toEqual(["commit (interim)", "batch (interim)", "commit", "drop"]);
  });

  it("a refused reply writes nothing, not even an empty segment", async () => {
    const driver = new StepCountingDriver();
    const { store, thread } = await threadOn(driver);
    const other = (await store.get("t")) as LogThread;
    // Two writers begin at once: both find the thread free, one commits first, the other reads again and is refused.
    const results = await Promise.allSettled([
      thread.beginMessage({ role: "assistant", id: "first" }),
      other.beginMessage({ role: "assistant", id: "second" }),
    ]);
    const refused = results.filter((result) => result.status === "rejected");
    expect(refused).toHaveLength(1);
    expect(StreamInProgressError.isInstance((refused[0] as PromiseRejectedResult).reason)).toBe(true);
    expect(driver.steps.importSegment).toBe(0);
    const begun = results.find((result) => result.status === "fulfilled");
    await (begun as PromiseFulfilledResult<Awaited<ReturnType<LogThread["beginMessage"]>>>).value.end();
  });
});

describe("beginMessage on a record the thread holds that is behind", () => {
  it("reads the record again before refusing: a reply that ended elsewhere does not block", async () => {
    const driver = new StepCountingDriver();
    const { store, thread } = await threadOn(driver);
    const elsewhere = (await store.get("t")) as LogThread;
    const first = await elsewhere.beginMessage({ role: "assistant", id: "first" });
    await thread.refresh();
    await first.end();
    // `thread` still shows "first" streaming: deciding on that would refuse a reply the thread allows.
    const second = await thread.beginMessage({ role: "assistant", id: "second" });
    await second.write("fine");
    expect(await second.end()).toMatchObject({ id: "second", contents: [{ type: "text", text: "fine" }] });
    expect((await thread.messages()).map((message) => message.id).slice(1)).toEqual(["first", "second"]);
  });
});
