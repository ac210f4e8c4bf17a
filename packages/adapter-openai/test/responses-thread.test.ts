import { type Message, SkeinError, type Thread } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OpenAIResponsesThread, openaiRunner } from "../src/index.js";
import { caught, countRequests, type Harness, startHarness, texts } from "./harness.js";

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

async function turn(thread: Thread, text: string): Promise<Message[]> {
  await thread.append({ role: "user", text });
  return openaiRunner({ client: harness.client, model: "gpt-test" }).run(thread);
}

describe("openai.responses", () => {
  it("starts empty without a request and records appended input as pending until a run", async () => {
    let thread: Thread | undefined;
    expect(
      await countRequests(harness, async () => {
        thread = await harness.store.create("openai.responses", { metadata: { user: "u-7" } });
        await thread.append({ role: "user", text: "hello" });
      }),
    ).toBe(0);
    const state = (thread as Thread).toJSON();
    expect(state).toMatchObject({
      $type: "openai.responses",
      $v: 1,
      revision: 2,
      previousResponseId: null,
      length: 0,
      checkpoints: [],
      events: [],
    });
    expect(texts(state.pending as Message[])).toEqual(["hello"]);
    expect(texts(await (thread as Thread).messages())).toEqual(["hello"]);
    expect((thread as Thread).capabilities).toEqual({
      fork: "native",
      checkpoints: true,
      rollback: true,
      timeTravel: true,
      views: true,
      revisions: true,
      // Deleting one removes the stored state only: its responses stay, where forks may still use them.
      remoteDelete: false,
    });
  });

  it("reads messages back from the last response's input items and output, in order", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    await turn(thread, "two");
    await thread.append({ role: "user", text: "three (pending)" });
    let messages: Message[] = [];
    const requests = await countRequests(harness, async () => {
      messages = await thread.messages();
    });
    expect(requests).toBe(2);
    expect(texts(messages)).toEqual(["one", "echo: one", "two", "echo: two", "three (pending)"]);
    expect(texts(await thread.messages({ last: 2 }))).toEqual(["echo: two", "three (pending)"]);
    expect(texts(await thread.messages({ after: messages[1]?.id, limit: 2 }))).toEqual(["two", "echo: two"]);
    expect(texts(await thread.messages({ after: messages[3]?.id }))).toEqual(["three (pending)"]);
    expect((await caught(thread.messages({ after: "msg_missing" }))).name).toBe("PointNotFoundError");
    expect(thread.toJSON().length).toBe(4);
  });

  it("gives views newest first, keeping a tool call with its result", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    await thread.append([
      {
        role: "assistant",
        contents: [{ type: "function_call", callId: "c1", name: "weather", arguments: {} }],
      },
      { role: "tool", contents: [{ type: "function_result", callId: "c1", result: "sunny" }] },
    ]);
    expect(texts(await thread.view({ maxMessages: 2 }))).toEqual(["function_call", "function_result"]);
    expect(texts(await thread.view({ maxMessages: 1 }))).toEqual([]);
    expect(texts(await thread.view({ maxMessages: 3 }))).toEqual([
      "echo: one",
      "function_call",
      "function_result",
    ]);
  });

  it("round-trips through JSON to a working thread that continues the chain", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    await thread.append({ role: "user", text: "two" });
    const json = JSON.stringify(thread);
    const again = await harness.store.open(JSON.parse(json));
    expect(again).toBeInstanceOf(OpenAIResponsesThread);
    expect(JSON.stringify(again)).toBe(json);
    await openaiRunner({ client: harness.client, model: "gpt-test" }).run(again);
    expect(texts(await again.messages())).toEqual(["one", "echo: one", "two", "echo: two"]);
    // The JSON can also go to a store that has never seen the thread.
    const elsewhere = await harness.store.scope("elsewhere").open(JSON.parse(JSON.stringify(again)));
    await turn(elsewhere, "three");
    expect(texts(await elsewhere.messages({ last: 1 }))).toEqual(["echo: three"]);
  });

  it("forks natively: no request, and each branch continues on its own", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    let fork: Thread | undefined;
    expect(
      await countRequests(harness, async () => {
        fork = await thread.fork({ metadata: { branch: "b" } });
      }),
    ).toBe(0);
    const branch = fork as Thread;
    expect(branch.toJSON()).toMatchObject({
      previousResponseId: thread.toJSON().previousResponseId,
      length: 2,
      metadata: { branch: "b" },
    });
    await turn(branch, "in the fork");
    await turn(thread, "in the parent");
    expect(texts(await branch.messages())).toEqual(["one", "echo: one", "in the fork", "echo: in the fork"]);
    expect(texts(await thread.messages())).toEqual([
      "one",
      "echo: one",
      "in the parent",
      "echo: in the parent",
    ]);
    expect((await branch.history())[0]).toMatchObject({ kind: "fork", parentId: thread.id });
    expect((await harness.store.get(branch.id)).toJSON()).toEqual(branch.toJSON());
  });

  it("forks at a message: at a response's end, or resending the rest of that response's input", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    await turn(thread, "two");
    const messages = await thread.messages();
    const atAnswer = await thread.fork({ at: messages[1]?.id });
    expect(atAnswer.toJSON()).toMatchObject({
      previousResponseId: harness.emulator.modelCalls[0]?.responseId,
      pending: [],
      length: 2,
    });
    const atQuestion = await thread.fork({ at: messages[2]?.id });
    expect(atQuestion.toJSON()).toMatchObject({
      previousResponseId: harness.emulator.modelCalls[0]?.responseId,
      length: 2,
    });
    expect(texts(await atQuestion.messages())).toEqual(["one", "echo: one", "two"]);
    await openaiRunner({ client: harness.client, model: "gpt-test" }).run(atQuestion);
    expect(texts(await atQuestion.messages())).toEqual(["one", "echo: one", "two", "echo: two"]);
    const atStart = await thread.fork({ at: messages[0]?.id });
    expect(atStart.toJSON()).toMatchObject({ previousResponseId: null, length: 0 });
    expect(texts(await atStart.messages())).toEqual(["one"]);
  });

  it("checkpoints and rolls back natively, keeping the abandoned chain in history", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    let checkpoint: Awaited<ReturnType<Thread["checkpoint"]>> | undefined;
    expect(
      await countRequests(harness, async () => {
        checkpoint = await thread.checkpoint("after one");
      }),
    ).toBe(0);
    await turn(thread, "two");
    const abandoned = thread.toJSON().previousResponseId;
    expect(await countRequests(harness, () => thread.rollback(checkpoint?.id as string))).toBe(0);
    expect(texts(await thread.messages())).toEqual(["one", "echo: one"]);
    const history = await thread.history();
    expect(history.map((event) => event.kind)).toEqual(["checkpoint", "rollback"]);
    const rollback = history[1] as Extract<(typeof history)[number], { kind: "rollback" }>;
    expect(rollback.from).toEqual({ segment: abandoned, offset: 0, position: 4 });
    expect(rollback.to).toEqual(checkpoint?.point);
    // The abandoned end is still reachable through its point.
    await thread.rollback(rollback.from);
    expect(texts(await thread.messages())).toEqual(["one", "echo: one", "two", "echo: two"]);
    const past = await thread.at(checkpoint as NonNullable<typeof checkpoint>);
    expect(texts(await past.messages())).toEqual(["one", "echo: one"]);
    expect((await caught(thread.rollback("cp_missing"))).name).toBe("PointNotFoundError");
  });

  it("rolls back to a message id and to a checkpoint that held pending input", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    await thread.append({ role: "user", text: "draft" });
    const checkpoint = await thread.checkpoint();
    await openaiRunner({ client: harness.client, model: "gpt-test" }).run(thread);
    const messages = await thread.messages();
    await thread.rollback(messages[1]?.id as string);
    expect(texts(await thread.messages())).toEqual(["one", "echo: one"]);
    await thread.rollback(checkpoint);
    expect(texts(await thread.messages())).toEqual(["one", "echo: one", "draft"]);
  });

  it("pages backwards with { before, limit } over pending input, output and earlier input", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    await turn(thread, "two");
    await thread.append({ role: "user", text: "three (pending)" });
    const all = await thread.messages();
    expect(texts(await thread.messages({ before: all[4]?.id, limit: 2 }))).toEqual(["two", "echo: two"]);
    expect(texts(await thread.messages({ before: all[3]?.id }))).toEqual(["one", "echo: one", "two"]);
    expect(texts(await thread.messages({ before: all[2]?.id, last: 1 }))).toEqual(["echo: one"]);
    expect(await thread.messages({ before: all[0]?.id })).toEqual([]);
    expect(texts(await thread.messages({ after: all[0]?.id, before: all[3]?.id, limit: 1 }))).toEqual([
      "echo: one",
    ]);
    expect(await thread.messages({ after: all[3]?.id, before: all[1]?.id })).toEqual([]);
    expect((await caught(thread.messages({ before: "msg_missing" }))).name).toBe("PointNotFoundError");
    expect((await caught(thread.messages({ before: "msg_missing", limit: 0 }))).name).toBe(
      "PointNotFoundError",
    );
    expect((await caught(thread.messages({ after: "msg_missing", before: all[3]?.id }))).name).toBe(
      "PointNotFoundError",
    );
    const past = await thread.at(all[3]?.id as string);
    expect(texts(await past.messages({ before: all[3]?.id, limit: 1 }))).toEqual(["two"]);
  });

  it('goes to "start" with rollback, fork and at, without a request', async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    const requests = await countRequests(harness, async () => {
      const fork = await thread.fork({ at: "start" });
      expect(await fork.messages()).toEqual([]);
      expect(await (await thread.at("start")).messages()).toEqual([]);
      await thread.rollback("start");
      expect(await thread.messages()).toEqual([]);
    });
    expect(requests).toBe(0);
    expect(thread.toJSON()).toMatchObject({ previousResponseId: null, length: 0, pending: [] });
    await turn(thread, "again");
    expect(texts(await thread.messages())).toEqual(["again", "echo: again"]);
  });

  it("refuses rollback with append and operation ids, changing nothing", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    const [first] = await thread.messages();
    const revision = thread.revision;
    for (const attempt of [
      thread.rollback(first?.id as string, { append: { role: "user", text: "x" } }),
      thread.rollback(first?.id as string, { operationId: "op-1" }),
      thread.append({ role: "user", text: "x" }, { operationId: "op-1" }),
    ]) {
      const error = await caught(attempt);
      expect(error.name).toBe("UnsupportedOperationError");
      expect(error.message).toMatch(/^\[adapter-openai\] Thread type "openai\.responses" does not support/);
    }
    expect(thread.revision).toBe(revision);
    expect(texts(await thread.messages())).toEqual(["one", "echo: one"]);
  });

  it("compares revisions: ifRevision, and two objects of one thread", async () => {
    const thread = await harness.store.create("openai.responses");
    await thread.append({ role: "user", text: "a" });
    const stale = await caught(thread.append({ role: "user", text: "b" }, { ifRevision: 1 }));
    expect(stale.name).toBe("ConcurrencyError");
    const other = await harness.store.get(thread.id);
    await other.append({ role: "user", text: "from elsewhere" });
    const conflict = await caught(thread.append({ role: "user", text: "lost?" }));
    expect(conflict.name).toBe("ConcurrencyError");
    await thread.refresh();
    await thread.append({ role: "user", text: "after refresh" }, { ifRevision: thread.revision });
    expect(texts(await thread.messages())).toEqual(["a", "from elsewhere", "after refresh"]);
  });

  it("treats a re-sent pending message as a no-op when equal and a conflict when not", async () => {
    const thread = await harness.store.create("openai.responses");
    const [message] = await thread.append({ id: "m1", role: "user", text: "hello" });
    expect(await thread.append(message as Message)).toEqual([message]);
    expect(thread.toJSON().pending).toHaveLength(1);
    expect((await caught(thread.append({ id: "m1", role: "user", text: "other" }))).name).toBe(
      "ConflictError",
    );
  });

  it("continues an existing stored chain, and deletes only its own state", async () => {
    const first = await harness.client.responses.create({ model: "gpt-test", input: "earlier", store: true });
    const thread = await harness.store.create("openai.responses", {
      id: "adopted",
      previousResponseId: first.id,
    });
    expect(thread.toJSON()).toMatchObject({ previousResponseId: first.id, length: 2 });
    await turn(thread, "later");
    expect(texts(await thread.messages())).toEqual(["earlier", "echo: earlier", "later", "echo: later"]);
    await thread.delete();
    expect((await caught(harness.store.get("adopted"))).name).toBe("ThreadNotFoundError");
    expect(harness.emulator.state.responses.has(first.id)).toBe(true);
  });

  it("says the chain is gone when its last response was deleted on the service", async () => {
    const thread = await harness.store.create("openai.responses");
    await turn(thread, "one");
    await harness.client.responses.delete(thread.toJSON().previousResponseId as string);
    const reading = await caught(thread.messages());
    expect(reading.name).toBe("OpenAINotFoundError");
    expect(SkeinError.isInstance(reading) && reading.message).toMatch(/^\[adapter-openai\] Thread /);
    const running = await caught(turn(thread, "two"));
    expect(running.name).toBe("OpenAINotFoundError");
  });
});
