import { MessageNotFoundError } from "../../branch-errors.js";
import { ConflictError, InvalidMessageError, InvalidOptionError, ThreadNotFoundError } from "../../errors.js";
import { LogThread } from "../../local/log-thread.js";
import type { Message } from "../../message.js";
import type { FollowEvent } from "../../spec/streaming.js";
import { STREAMS_KEY } from "../../streaming/stream-entries.js";
import { ReplyEndedError, StreamInProgressError } from "../../streaming/stream-errors.js";
import type { WorkflowThread } from "../../workflow/workflow-thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const text = (message: Message | undefined) =>
  message?.contents.map((content) => (content.type === "text" ? content.text : `[${content.type}]`)).join("");
const ids = async (thread: LogThread) => (await thread.messages()).map((message) => message.id);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Every write its own batch, so what was written is what was flushed. */
const EACH_WRITE = { maxBatchBytes: 1 };

async function localThread(context: SuiteContext): Promise<LogThread> {
  const thread = await context.store.create();
  if (!LogThread.isInstance(thread)) throw new Error("the store's native threads are not log threads");
  return thread;
}

async function collect(events: AsyncIterable<FollowEvent>): Promise<FollowEvent[]> {
  const all: FollowEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** Replies streamed into a thread (`beginMessage`, `follow`): issue 39. */
export function streamingCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "a reply streams into the thread: readers see it streaming, view leaves it out, end makes it ordinary",
    async () => {
      const thread = await localThread(context);
      await thread.append({ id: "q", role: "user", text: "hi" });
      const reply = await thread.beginMessage({
        role: "assistant",
        id: "r",
        author: "helper",
        ...EACH_WRITE,
      });
      await reply.write("Hel");
      await reply.write({ type: "text", text: "lo" });
      await reply.write({ type: "reasoning", text: "thinking" });
      await reply.write({
        type: "function_call",
        callId: "c1",
        name: "weather",
        arguments: { city: "Paris" },
      });
      expect(reply.written).toBe(4);

      const reader = (await context.store.get(thread.id)) as LogThread;
      const seen = await reader.messages();
      expect(seen.map((message) => message.id)).toEqual(["q", "r"]);
      expect(seen[1]).toMatchObject({ role: "assistant", authorName: "helper", status: "streaming" });
      expect(seen[1]?.contents).toEqual([
        { type: "text", text: "Hello" },
        { type: "reasoning", text: "thinking" },
        { type: "function_call", callId: "c1", name: "weather", arguments: { city: "Paris" } },
      ]);
      expect((await reader.messages({ last: 1 })).map((message) => message.id)).toEqual(["r"]);
      expect((await reader.messages({ limit: 1 })).map((message) => message.id)).toEqual(["q"]);
      expect(reader.length).toBe(1);
      expect((await reader.view()).map((message) => message.id)).toEqual(["q"]);
      expect((await reader.view({ streaming: true })).map((message) => message.id)).toEqual(["q", "r"]);
      // The reply's bookkeeping is the store's: the thread's context and JSON never carry it.
      expect(reader.context).toEqual({});
      expect(JSON.parse(JSON.stringify(reader)).context).toEqual({});

      const ended = await reply.end();
      expect(ended.status).toBeUndefined();
      expect(text(ended)).toBe("Hello[reasoning][function_call]");
      const after = await reader.messages();
      expect(after.map((message) => message.id)).toEqual(["q", "r"]);
      expect(after[1]).toEqual(ended);
      expect(reader.length).toBe(2);
      expect((await reader.view()).map((message) => message.id)).toEqual(["q", "r"]);
    },
  );

  conformanceCase(context, "fail ends the reply interrupted, with everything written kept", async () => {
    const thread = await localThread(context);
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 10_000 });
    await reply.write("partial ");
    await reply.write("answer");
    const failed = await reply.fail(new Error("model timed out"));
    expect(failed.status).toBe("interrupted");
    expect(failed.contents).toEqual([
      { type: "text", text: "partial answer" },
      { type: "error", message: "model timed out" },
    ]);
    expect(await thread.messages()).toEqual([failed]);
    // The status is a field of the message: an export and an import keep it.
    const copy = (await context.store.import(await context.store.export(thread.id), {
      id: `${thread.id}-copy`,
    })) as LogThread;
    expect(await copy.messages()).toEqual([failed]);
    expect((await caught(reply.write("more"))) instanceof ReplyEndedError).toBe(true);
    expect(ReplyEndedError.isInstance(await caught(reply.end()))).toBe(true);
  });

  conformanceCase(
    context,
    "a writer that dies: once its lease lapses the next read ends its reply interrupted, every flushed delta kept",
    async (control) => {
      // A writer dies here by losing its store (its lease renewals fail); a memory store dies with its process.
      const open = context.options.openSecondStore;
      if (!open) {
        control.skip("needs a second store on the same data (openSecondStore)");
        return;
      }
      const thread = await localThread(context);
      await thread.append({ id: "q", role: "user", text: "hi" });
      const writerStore = await open(context.store);
      const writing = (await writerStore.get(thread.id)) as LogThread;
      const reply = await writing.beginMessage({ role: "assistant", id: "r", leaseMs: 300, ...EACH_WRITE });
      await reply.write("every ");
      await reply.write("flushed delta");
      await writerStore.close();
      expect((await thread.messages()).at(-1)?.status).toBe("streaming");
      await sleep(450);
      const [, interrupted] = await thread.messages();
      expect(interrupted).toMatchObject({ id: "r", status: "interrupted" });
      expect(text(interrupted)).toBe("every flushed delta");
      expect(thread.length).toBe(2);
      // Ended once: a second reader finds it in the log, no entry left to end.
      const again = (await context.store.get(thread.id)) as LogThread;
      expect(await ids(again)).toEqual(["q", "r"]);
      const next = await again.beginMessage({ role: "assistant" });
      await next.end();
    },
  );

  conformanceCase(
    context,
    "follow gives the deltas from an offset as they are flushed, then the whole message",
    async () => {
      const thread = await localThread(context);
      const reply = await thread.beginMessage({ role: "assistant", ...EACH_WRITE });
      await reply.write("a");
      await reply.write("b");
      const store = context.options.openSecondStore
        ? await context.options.openSecondStore(context.store)
        : context.store;
      try {
        const follower = (await store.get(thread.id)) as LogThread;
        const iterator = follower.follow(reply.id, { from: 1, pollMs: 10 })[Symbol.asyncIterator]();
        // The follower has read the flushed deltas before the next are written: it then follows them live.
        const first = await iterator.next();
        expect(first.value).toEqual({ type: "delta", offset: 1, delta: { type: "text", text: "b" } });
        const following = collect({ [Symbol.asyncIterator]: () => iterator }).then((rest) => [
          first.value as FollowEvent,
          ...rest,
        ]);
        await sleep(30);
        await reply.write("c");
        await reply.write({ type: "reasoning", text: "d" });
        const ended = await reply.end();
        const events = await following;
        const deltas = events.filter((event) => event.type === "delta");
        expect(deltas).toEqual([
          { type: "delta", offset: 1, delta: { type: "text", text: "b" } },
          { type: "delta", offset: 2, delta: { type: "text", text: "c" } },
          { type: "delta", offset: 3, delta: { type: "reasoning", text: "d" } },
        ]);
        expect(events.at(-1)).toEqual({ type: "end", message: ended });
      } finally {
        if (store !== context.store) await store.close();
      }
    },
  );

  conformanceCase(
    context,
    "a follower the reply's landing overtook gets the deltas it had not read, then the whole message",
    async () => {
      const thread = await localThread(context);
      const reply = await thread.beginMessage({ role: "assistant", ...EACH_WRITE });
      await reply.write("a");
      await reply.write("b");
      const events = thread.follow(reply.id, { pollMs: 10 })[Symbol.asyncIterator]();
      expect((await events.next()).value).toEqual({
        type: "delta",
        offset: 0,
        delta: { type: "text", text: "a" },
      });
      // The follower waits while the writer flushes two more batches and lands the reply (its batches reclaimed).
      await reply.write("c");
      await reply.write({ type: "reasoning", text: "d" });
      const ended = await reply.end();
      const rest = await collect({ [Symbol.asyncIterator]: () => events });
      // Every delta after offset 0 arrives, from the batches or completed from the landed message.
      expect(rest.filter((event) => event.type === "delta")).toEqual([
        { type: "delta", offset: 1, delta: { type: "text", text: "b" } },
        { type: "delta", offset: 2, delta: { type: "text", text: "c" } },
        { type: "delta", offset: 3, delta: { type: "reasoning", text: "d" } },
      ]);
      expect(rest.at(-1)).toEqual({ type: "end", message: ended });

      // A writer that ends with contents of its own: the reader gets the message as it landed.
      const own = await thread.beginMessage({ role: "assistant", ...EACH_WRITE });
      await own.write("draft ");
      await own.write("one");
      const following = thread.follow(own.id, { pollMs: 10 })[Symbol.asyncIterator]();
      expect((await following.next()).value).toMatchObject({ type: "delta", offset: 0 });
      const replaced = await own.end({ contents: [{ type: "text", text: "final" }] });
      const after = await collect({ [Symbol.asyncIterator]: () => following });
      expect(after.at(-1)).toEqual({ type: "end", message: replaced });
      expect(after.filter((event) => event.type === "delta").length <= 1).toBe(true);
    },
  );

  conformanceCase(
    context,
    "follow of an ended message gives it whole at once; an unknown id is a MessageNotFoundError; abort stops it",
    async () => {
      const thread = await localThread(context);
      await thread.append({ id: "q", role: "user", text: "plain" });
      const reply = await thread.beginMessage({ role: "assistant" });
      await reply.write("done");
      const ended = await reply.end();
      expect(await collect(thread.follow(ended.id, { from: 5 }))).toEqual([{ type: "end", message: ended }]);
      const [plain] = await thread.messages();
      expect(await collect(thread.follow("q"))).toEqual([{ type: "end", message: plain as Message }]);
      const missing = await caught(collect(thread.follow("nope")));
      expect(MessageNotFoundError.isInstance(missing)).toBe(true);

      const open = await thread.beginMessage({ role: "assistant" });
      const controller = new AbortController();
      const following = collect(thread.follow(open.id, { signal: controller.signal, pollMs: 10 }));
      await sleep(20);
      controller.abort(new Error("reader left"));
      expect((await caught(following)).message).toBe("reader left");
      // The writer never waited for the reader that left.
      await open.write("still writing");
      expect(text(await open.end())).toBe("still writing");
    },
  );

  conformanceCase(
    context,
    "deltas are written in batches: a long reply costs two commits of the record and few batches",
    async () => {
      const thread = await localThread(context);
      const before = thread.revision as number;
      // A long flush interval: only the byte bound (and end) writes batches here.
      const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000, maxBatchBytes: 1_000 });
      const deltas = Array.from({ length: 200 }, (_, index) => `token-${index} `);
      for (const delta of deltas) await reply.write(delta);
      const batches = await context.store.get(thread.id).then(async (reader) => {
        const entry = ((reader as LogThread).record.context[STREAMS_KEY] as Array<{ segment: string }>)[0];
        return (reader as LogThread).host.driver.readSegment(entry?.segment as string, 0, 1_000_000);
      });
      // Each delta is about 30 bytes as JSON: 6,000 bytes in batches of 1,000, never one write per delta.
      expect(batches.length).toBeGreaterThan(0);
      expect(batches.length < 10).toBe(true);
      const ended = await reply.end();
      expect(text(ended)).toBe(deltas.join(""));
      await thread.refresh();
      // begin and end, nothing per delta (the lease, 30 s by default, was not renewed meanwhile).
      expect(thread.revision).toBe(before + 2);
    },
  );

  conformanceCase(context, "a second reply while one streams is refused unless concurrent", async () => {
    const thread = await localThread(context);
    const first = await thread.beginMessage({ role: "assistant", id: "one" });
    const refused = await caught(thread.beginMessage({ role: "assistant", id: "two" }));
    expect(StreamInProgressError.isInstance(refused)).toBe(true);
    expect(ConflictError.isInstance(refused)).toBe(true);
    const second = await thread.beginMessage({ role: "assistant", id: "two", concurrent: true });
    await second.write("second");
    await first.write("first");
    await second.end();
    await first.end();
    expect(await ids(thread)).toEqual(["two", "one"]);
    const third = await thread.beginMessage({ role: "assistant", id: "three" });
    await third.end();
    expect(await ids(thread)).toEqual(["two", "one", "three"]);
  });

  conformanceCase(context, "bad input is a typed error and writes nothing", async () => {
    const thread = await localThread(context);
    await thread.append({ id: "taken", role: "user", text: "x" });
    const revision = thread.revision;
    for (const options of [
      { role: "robot" },
      { role: "assistant", flushMs: -1 },
      { role: "assistant", leaseMs: 0 },
      { role: "assistant", concurrent: "yes" },
    ]) {
      const error = await caught(thread.beginMessage(options as never));
      expect(InvalidOptionError.isInstance(error)).toBe(true);
    }
    expect(
      ConflictError.isInstance(await caught(thread.beginMessage({ role: "assistant", id: "taken" }))),
    ).toBe(true);
    await thread.refresh();
    expect(thread.revision).toBe(revision);

    const reply = await thread.beginMessage({ role: "assistant" });
    for (const delta of [{ type: "mystery", x: 1 }, { type: "text" }, 42, null]) {
      const error = await caught(reply.write(delta as never));
      expect(InvalidMessageError.isInstance(error)).toBe(true);
    }
    expect(reply.written).toBe(0);
    await reply.end();
    const ended = await caught(reply.write("late"));
    expect(ReplyEndedError.isInstance(ended) && (ended as ReplyEndedError).reason).toBe("ended");
    expect(InvalidOptionError.isInstance(await caught(collect(thread.follow(reply.id, { from: -1 }))))).toBe(
      true,
    );
  });

  conformanceCase(
    context,
    "a namespaced delta is kept as it is; end({ contents, metadata }) lands the writer's finished form, a malformed one leaves the reply open",
    async () => {
      const thread = await localThread(context);
      const reply = await thread.beginMessage({ role: "assistant", id: "r", ...EACH_WRITE });
      await reply.write({ type: "acme.step", n: 1 });
      await reply.write("Hi");
      const reader = (await context.store.get(thread.id)) as LogThread;
      expect((await reader.messages())[0]?.contents).toEqual([
        { type: "acme.step", n: 1 },
        { type: "text", text: "Hi" },
      ]);
      const malformed = await caught(reply.end({ contents: [{ type: "text" } as never] }));
      expect(InvalidMessageError.isInstance(malformed)).toBe(true);
      const final = [
        { type: "acme.step", n: 1 },
        { type: "text", text: "Hi", acme: { state: "done" } },
      ];
      const ended = await reply.end({ contents: final, metadata: { acme: { from: "ui" } } });
      expect(ended.contents).toEqual(final);
      expect(ended.metadata).toEqual({ acme: { from: "ui" } });
      await reader.refresh();
      const [stored] = await reader.messages();
      expect(stored?.contents).toEqual(final);
      expect(stored?.metadata).toEqual({ acme: { from: "ui" } });
      expect((stored as { status?: string } | undefined)?.status).toBe(undefined);

      const cut = await thread.beginMessage({ role: "assistant", id: "cut", ...EACH_WRITE });
      await cut.write("Hal");
      const failed = await cut.fail(new Error("aborted"), {
        contents: [{ type: "text", text: "Hal", acme: { state: "cut" } }],
      });
      expect(failed.contents).toEqual([
        { type: "text", text: "Hal", acme: { state: "cut" } },
        { type: "error", message: "aborted" },
      ]);
      expect((failed as { status?: string }).status).toBe("interrupted");
    },
  );

  conformanceCase(
    context,
    "a fork or checkpoint taken mid-stream holds the log without the reply; rollback and edit leave the reply to land at the end",
    async () => {
      const thread = await localThread(context);
      await thread.append([
        { id: "a", role: "user", text: "a" },
        { id: "b", role: "assistant", text: "b" },
      ]);
      const reply = await thread.beginMessage({ role: "assistant", id: "r", ...EACH_WRITE });
      await reply.write("streamed");
      const fork = (await thread.fork({ id: `${thread.id}-fork` })) as LogThread;
      expect(await ids(fork)).toEqual(["a", "b"]);
      expect(fork.context).toEqual({});
      // An export taken mid-stream is the log without the reply, and imports as an ordinary thread.
      const exported = await context.store.export(thread.id);
      expect(exported.context).toEqual({});
      const imported = (await context.store.import(exported, { id: `${thread.id}-copy` })) as LogThread;
      expect(await ids(imported)).toEqual(["a", "b"]);
      const afterImport = await imported.beginMessage({ role: "assistant" });
      await afterImport.end();
      // An update of the context while it streams replaces the application's context, not the reply's entry.
      await thread.update({ metadata: { topic: "weather" }, context: { memory: { facts: [] } } });
      expect(thread.context).toEqual({ memory: { facts: [] } });
      const checkpoint = await thread.checkpoint("mid-stream");
      expect(checkpoint.point.position).toBe(2);
      await thread.rollback("a");
      const edited = await thread.edit("a", { role: "user", text: "a, edited" });
      expect(await ids(thread)).toEqual([edited.id, "r"]);
      const ended = await reply.end();
      expect(await ids(thread)).toEqual([edited.id, "r"]);
      expect(text((await thread.messages())[0])).toBe("a, edited");
      expect(await ids(fork)).toEqual(["a", "b"]);
      const past = await thread.at(checkpoint);
      expect((await past.messages()).map((message) => message.id)).toEqual(["a", "b"]);
      // The ended reply is an ordinary message: its JSON round-trips like any other.
      expect(JSON.parse(JSON.stringify(ended))).toEqual(ended);
    },
  );

  conformanceCase(
    context,
    "a workflow's local sub-thread streams: workflow.thread(key) is a LogThread, also once the workflow is read again",
    async () => {
      const workflow = (await context.store.create("workflow", {})) as WorkflowThread;
      // A workflow made without sub-threads holds a local thread of the store under "main".
      const main = workflow.thread("main");
      expect(LogThread.isInstance(main)).toBe(true);
      const reply = await (main as LogThread).beginMessage({ role: "assistant", id: "r", ...EACH_WRITE });
      await reply.write("from a sub-thread");
      const again = ((await context.store.get(workflow.id)) as WorkflowThread).thread("main");
      expect(LogThread.isInstance(again)).toBe(true);
      const following = collect((again as LogThread).follow("r"));
      await reply.end();
      const events = await following;
      expect(events[events.length - 1]?.type).toBe("end");
      expect(text((await workflow.messages())[0])).toBe("from a sub-thread");
    },
  );

  conformanceCase(
    context,
    "a writer keeps its lease past leaseMs with no commit: the revision stays, an ifRevision taken mid-stream holds",
    async () => {
      const thread = await localThread(context);
      const reply = await thread.beginMessage({ role: "assistant", id: "r", leaseMs: 300 });
      const other = (await context.store.get(thread.id)) as LogThread;
      const revision = other.revision;
      // Three leases long with nothing to write: the writer's heartbeats keep the reply alive.
      await sleep(900);
      expect((await other.messages()).map((message) => message.status)).toEqual(["streaming"]);
      expect(other.revision).toBe(revision);
      expect(StreamInProgressError.isInstance(await caught(other.beginMessage({ role: "assistant" })))).toBe(
        true,
      );
      await other.append({ id: "u", role: "user", text: "meanwhile" }, { ifRevision: revision });
      await reply.write("late");
      expect(text(await reply.end())).toBe("late");
      expect(await ids(other)).toEqual(["u", "r"]);
    },
  );

  conformanceCase(
    context,
    "a reply's batches are reclaimed once it ends or fails, or its thread is deleted: the store holds it once",
    async () => {
      const thread = await localThread(context);
      const driver = thread.host.driver;
      const segmentOf = (reader: LogThread, id: string) =>
        (reader.record.context[STREAMS_KEY] as Array<{ id: string; segment: string }>).find(
          (entry) => entry.id === id,
        )?.segment as string;
      const batchesLeft = async (segment: string) => ({
        info: (await driver.segment(segment)) !== undefined,
        batches: (await driver.readSegment(segment, 0, 1_000)).length,
      });
      const ended = await thread.beginMessage({ role: "assistant", id: "ended", ...EACH_WRITE });
      await ended.write("kept once");
      const failed = await thread.beginMessage({
        role: "assistant",
        id: "failed",
        concurrent: true,
        ...EACH_WRITE,
      });
      await failed.write("partial");
      const reader = (await context.store.get(thread.id)) as LogThread;
      const endedSegment = segmentOf(reader, "ended");
      const failedSegment = segmentOf(reader, "failed");
      expect(await batchesLeft(endedSegment)).toEqual({ info: true, batches: 1 });
      await ended.end();
      await failed.fail(new Error("stopped"));
      expect(await batchesLeft(endedSegment)).toEqual({ info: false, batches: 0 });
      expect(await batchesLeft(failedSegment)).toEqual({ info: false, batches: 0 });
      expect(text((await thread.messages())[0])).toBe("kept once");
      // A follower that comes after gets the message from the log.
      const events = await collect(reader.follow("ended"));
      expect(events.map((event) => event.type)).toEqual(["end"]);

      const doomed = await localThread(context);
      const open = await doomed.beginMessage({ role: "assistant", id: "open", ...EACH_WRITE });
      await open.write("never landed");
      const openSegment = segmentOf((await context.store.get(doomed.id)) as LogThread, "open");
      await context.store.delete(doomed.id);
      expect(await batchesLeft(openSegment)).toEqual({ info: false, batches: 0 });
      // Its writer finds no thread to land in.
      expect(ThreadNotFoundError.isInstance(await caught(open.end()))).toBe(true);
    },
  );
}
