import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Message, messageText, openStore, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createThreadService,
  type ServiceEvent,
  ThreadKilledError,
  ThreadProcessingError,
  type ThreadService,
} from "../src/index.js";
import { type StreamedModel, startStreamedModel, streamingRunner } from "./streamed-model.js";

let directory: string;
let store: ThreadStore;
/** The same files opened again: a reader that shares nothing in memory with the service. */
let reader: ThreadStore;
let model: StreamedModel;
let service: ThreadService;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "skein-service-streaming-"));
  store = await openStore(`file:${directory}`);
  reader = await openStore(`file:${directory}`);
  model = await startStreamedModel();
  service = createThreadService({ store, runner: streamingRunner(model.url) });
});

afterEach(async () => {
  await service.close({ abort: true });
  await model.close();
  await reader.close();
  await store.close();
  await rm(directory, { recursive: true, force: true });
});

/** Reads `events` until `wanted` matches, keeping every event read in `seen`. */
async function until<T extends ServiceEvent>(
  events: AsyncIterator<ServiceEvent>,
  seen: ServiceEvent[],
  wanted: (event: ServiceEvent) => event is T,
): Promise<T> {
  for (;;) {
    const { value, done } = await events.next();
    if (done) throw new Error(`the events ended before the one wanted; seen: ${seen.map((e) => e.type)}`);
    seen.push(value);
    if (wanted(value)) return value;
  }
}

const deltaAt =
  (offset: number) =>
  (event: ServiceEvent): event is Extract<ServiceEvent, { type: "delta" }> =>
    event.type === "delta" && event.offset === offset;
const replyEnded = (event: ServiceEvent): event is Extract<ServiceEvent, { type: "reply-ended" }> =>
  event.type === "reply-ended";

function deltaTexts(events: ServiceEvent[]): string[] {
  return events.flatMap((event) =>
    event.type === "delta" && event.delta.type === "text" ? [String(event.delta.text)] : [],
  );
}

/** Polls a reader's view of the thread until `check` holds (the writer flushes every 50 ms). */
async function readerSees(threadId: string, check: (last: Message | undefined) => boolean): Promise<Message> {
  for (;;) {
    const thread = await reader.get(threadId);
    const [last] = await thread.messages({ last: 1 });
    if (check(last)) return last as Message;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("a run streams its reply into the thread", () => {
  it("as the model sends it: events carry each delta with its offset, readers see it grow, then the message", async () => {
    const { threadId } = await service.createThread();
    const events = service.events(threadId);
    const seen: ServiceEvent[] = [];
    const sending = service.send(threadId, "tell me");

    await model.send("Once ");
    const first = await until(events, seen, deltaAt(0));
    await model.send("upon ");
    await until(events, seen, deltaAt(1));
    // Another store on the same files sees the reply streaming, with what was flushed so far.
    const partial = await readerSees(
      threadId,
      (last) => last?.status === "streaming" && messageText(last) === "Once upon ",
    );
    expect(partial.id).toBe(first.replyId);
    expect((await (await reader.get(threadId)).view()).some((message) => message.id === first.replyId)).toBe(
      false,
    );

    await model.send("a time.");
    await until(events, seen, deltaAt(2));
    await model.finish();
    const ended = await until(events, seen, replyEnded);
    const result = await sending;
    await until(events, seen, (event): event is ServiceEvent => event.type === "completed");

    expect(seen.map((event) => event.type).filter((type) => type !== "status")).toEqual([
      "reply-started",
      "delta",
      "delta",
      "delta",
      "reply-ended",
      "completed",
    ]);
    expect(deltaTexts(seen)).toEqual(["Once ", "upon ", "a time."]);
    expect(seen.filter((event) => event.type === "delta").map((event) => event.offset)).toEqual([0, 1, 2]);
    expect(ended.message.status).toBeUndefined();
    expect(messageText(ended.message)).toBe("Once upon a time.");
    expect(result.messages.map((message) => message.id)).toEqual([first.replyId]);
    const stored = await readerSees(
      threadId,
      (last) => last?.id === first.replyId && last.status === undefined,
    );
    expect(stored.contents).toEqual([{ type: "text", text: "Once upon a time." }]);
    expect(await service.status(threadId)).toBe("idle");
  });

  it("kill mid-stream ends the reply interrupted with every delta received kept", async () => {
    const { threadId } = await service.createThread();
    const events = service.events(threadId);
    const seen: ServiceEvent[] = [];
    const sending = service.send(threadId, "go");
    for (const [offset, chunk] of ["alpha ", "beta ", "gamma"].entries()) {
      await model.send(chunk);
      await until(events, seen, deltaAt(offset));
    }
    await service.kill(threadId);
    await expect(sending).rejects.toBeInstanceOf(ThreadKilledError);
    const ended = await until(events, seen, replyEnded);

    expect(ended.message.status).toBe("interrupted");
    expect(messageText(ended.message)).toBe("alpha beta gamma");
    expect(ended.message.contents.at(-1)).toMatchObject({ type: "error" });
    // In the store, for any reader: the interrupted message, nothing streaming any more.
    const stored = await readerSees(
      threadId,
      (last) => last?.id === ended.replyId && last.status === "interrupted",
    );
    expect(stored.contents.filter((content) => content.type === "text")).toEqual([
      { type: "text", text: "alpha beta gamma" },
    ]);
    const all = await (await reader.get(threadId)).messages();
    expect(all.filter((message) => message.status === "streaming")).toEqual([]);
    expect(await service.status(threadId)).toBe("killed");
  });

  it("an events client joining late gets the deltas from its offset, then the live ones", async () => {
    const { threadId } = await service.createThread();
    const early = service.events(threadId);
    const earlySeen: ServiceEvent[] = [];
    const sending = service.send(threadId, "count");
    for (const [offset, chunk] of ["one ", "two ", "three "].entries()) {
      await model.send(chunk);
      await until(early, earlySeen, deltaAt(offset));
    }
    const replyId = (earlySeen.find((event) => event.type === "delta") as { replyId: string }).replyId;

    // Joins having received two deltas: offset 2 onwards, then what comes live, each once.
    const late = service.events(threadId, { from: { replyId, offset: 2 } });
    const lateSeen: ServiceEvent[] = [];
    await model.send("four ");
    await until(late, lateSeen, deltaAt(3));
    await model.send("five");
    await model.finish();
    const ended = await until(late, lateSeen, replyEnded);
    await sending;

    expect(deltaTexts(lateSeen)).toEqual(["three ", "four ", "five"]);
    expect(lateSeen.filter((event) => event.type === "delta").map((event) => event.offset)).toEqual([
      2, 3, 4,
    ]);
    expect(messageText(ended.message)).toBe("one two three four five");
  });

  it("a client of another service instance follows the reply from the store, from its offset to its end", async () => {
    const { threadId } = await service.createThread();
    const events = service.events(threadId);
    const seen: ServiceEvent[] = [];
    const sending = service.send(threadId, "count");
    await model.send("one ");
    await until(events, seen, deltaAt(0));
    await model.send("two ");
    const second = await until(events, seen, deltaAt(1));

    // A second instance on the same files does not run the reply: it follows it in the store.
    const other = createThreadService({ store: reader, runner: streamingRunner(model.url) });
    const late = other.events(threadId, { from: { replyId: second.replyId, offset: 1 } });
    const lateSeen: ServiceEvent[] = [];
    await until(late, lateSeen, deltaAt(1));
    await model.send("three");
    await until(late, lateSeen, deltaAt(2));
    await model.finish();
    const ended = await until(late, lateSeen, replyEnded);
    await sending;
    await late.return?.();
    await other.close();

    expect(deltaTexts(lateSeen)).toEqual(["two ", "three"]);
    expect(ended.message.status).toBeUndefined();
    expect(messageText(ended.message)).toBe("one two three");
  });

  it("a reply its runner left open ends interrupted: the runner threw, or returned without ending it", async () => {
    const leaving = createThreadService({
      store,
      runner: {
        specificationVersion: "v1",
        supports: () => true,
        async run(_thread, options = {}) {
          const reply = await options.beginMessage?.({ role: "assistant", id: `reply-${++runs}` });
          await reply?.write("partial");
          if (runs === 1) throw new Error("model crashed");
          return [];
        },
      },
    });
    let runs = 0;
    const { threadId } = await leaving.createThread();
    await expect(leaving.send(threadId, "one")).rejects.toBeInstanceOf(ThreadProcessingError);
    await leaving.send(threadId, "two");
    const [crashed, returned] = (await (await reader.get(threadId)).messages()).filter(
      (message) => message.role === "assistant",
    );
    expect([crashed?.id, crashed?.status, returned?.id, returned?.status]).toEqual([
      "reply-1",
      "interrupted",
      "reply-2",
      "interrupted",
    ]);
    expect(crashed?.contents).toEqual([
      { type: "text", text: "partial" },
      { type: "error", message: "model crashed" },
    ]);
    expect(messageText(returned as Message)).toBe("partial");
    expect(returned?.contents.at(-1)).toMatchObject({ type: "error" });
    await leaving.close();
  });

  it("a runner that does not stream is unchanged; from needs a thread and a whole offset", async () => {
    const plain = createThreadService({
      store,
      runner: {
        specificationVersion: "v1",
        supports: () => true,
        run: (thread) => thread.append({ role: "assistant", text: "whole" }),
      },
    });
    const { threadId } = await plain.createThread();
    const seen: ServiceEvent[] = [];
    const events = plain.events(threadId);
    const result = await plain.send(threadId, "hi");
    await until(events, seen, (event): event is ServiceEvent => event.type === "completed");
    expect(seen.some((event) => event.type === "delta" || event.type === "reply-started")).toBe(false);
    expect(messageText(result.messages[0] as Message)).toBe("whole");
    expect(() => plain.events(undefined, { from: { replyId: "r" } })).toThrow(/threadId/);
    expect(() => plain.events(threadId, { from: { replyId: "r", offset: -1 } })).toThrow(/from.offset/);
    await plain.close();
  });
});
