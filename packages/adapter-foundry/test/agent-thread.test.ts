import {
  type Message,
  openStore,
  PointNotFoundError,
  ThreadNotFoundError,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import { FoundryAgentThread, FoundryNotFoundError } from "../src/index.js";
import { REMOTE_CAPABILITIES } from "../src/remote-thread.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

async function agentThreadWith(count: number) {
  const store = await fixture.store();
  const thread = await store.create("foundry.thread", {
    agentId: "asst_echo",
    metadata: { team: "support" },
  });
  const inputs = Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
    text: `line ${index}`,
  }));
  const stored = inputs.length ? await thread.append(inputs) : [];
  return { store, thread: thread as FoundryAgentThread, stored };
}

const texts = (messages: Message[]) =>
  messages.map((message) => (message.contents[0] as { text?: string }).text);

describe("foundry.thread", () => {
  test("is created through the store, holds ids only, and binds again from its JSON", async () => {
    const { thread } = await agentThreadWith(1);
    const json = JSON.parse(JSON.stringify(thread));
    expect(json).toMatchObject({
      $type: "foundry.thread",
      $v: 1,
      agentId: "asst_echo",
      metadata: { team: "support" },
    });
    expect(json.threadId).toMatch(/^thread_/);
    expect(json.id).toBe(json.threadId);
    expect(thread.capabilities).toEqual(REMOTE_CAPABILITIES);
    const elsewhere = await openStore("memory:", { adapters: [fixture.adapter()] });
    const again = await elsewhere.open(json);
    expect(again).toBeInstanceOf(FoundryAgentThread);
    await again.append({ role: "user", text: "again" });
    expect(texts(await thread.messages())).toEqual(["line 0", "again"]);
  });

  test("reads past the SDK's first page by paging by hand with an explicit order and cursor", async () => {
    const { thread, stored } = await agentThreadWith(230);
    expect(stored).toHaveLength(230);
    const before = fixture.emulator.http.requests.length;
    const all = await thread.messages();
    expect(texts(all)).toEqual(Array.from({ length: 230 }, (_, index) => `line ${index}`));
    const lists = fixture.emulator.http.requests.slice(before);
    expect(lists.map((request) => [request.query.get("order"), request.query.get("limit")])).toEqual([
      ["asc", "100"],
      ["asc", "100"],
      ["asc", "100"],
    ]);
    expect(lists.map((request) => request.query.get("after"))).toEqual([null, all[99]?.id, all[199]?.id]);
    expect(lists.every((request) => request.query.get("api-version") === "v1")).toBe(true);
  });

  test("reads the last k, after a message, and up to a limit", async () => {
    const { thread, stored } = await agentThreadWith(120);
    const before = fixture.emulator.http.requests.length;
    expect(texts(await thread.messages({ last: 2 }))).toEqual(["line 118", "line 119"]);
    expect(fixture.emulator.http.requests.slice(before).map((request) => request.query.get("order"))).toEqual(
      ["desc"],
    );
    expect(texts(await thread.messages({ after: stored[100]?.id, limit: 3 }))).toEqual([
      "line 101",
      "line 102",
      "line 103",
    ]);
    expect(await thread.messages({ last: 200 })).toHaveLength(120);
    await expect(thread.messages({ after: "msg_missing" })).rejects.toBeInstanceOf(PointNotFoundError);
  });

  test("pages backwards with { before, limit } across pages, as local threads do", async () => {
    const { thread, stored } = await agentThreadWith(120);
    const range = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, index) => `line ${from + index}`);
    expect(texts(await thread.messages({ before: stored[110]?.id, limit: 3 }))).toEqual(range(107, 110));
    expect(texts(await thread.messages({ before: stored[115]?.id, limit: 110 }))).toEqual(range(5, 115));
    expect(await thread.messages({ before: stored[0]?.id })).toEqual([]);
    expect(texts(await thread.messages({ after: stored[3]?.id, before: stored[9]?.id, limit: 2 }))).toEqual(
      range(4, 6),
    );
    await expect(thread.messages({ before: "msg_missing" })).rejects.toBeInstanceOf(PointNotFoundError);
  });

  test("finds one message by id, or undefined", async () => {
    const { thread } = await agentThreadWith(3);
    const all = await thread.messages();
    expect(await thread.message(all[1]?.id as string)).toEqual(all[1]);
    expect(await thread.message("msg_missing")).toBeUndefined();
  });

  test('forks at "start" into a new, empty classic thread', async () => {
    const { thread } = await agentThreadWith(3);
    const fork = await thread.fork({ at: "start" });
    expect(fork.toJSON().threadId).not.toBe(thread.threadId);
    expect(await fork.messages()).toEqual([]);
  });

  test("keeps the service's ids and times, and images in user messages", async () => {
    const { thread } = await agentThreadWith(0);
    const [message] = await thread.append({
      role: "user",
      contents: [
        { type: "text", text: "look" },
        { type: "file", fileId: "file_9", mediaType: "image/png" },
      ],
    });
    expect(message?.id).toMatch(/^msg_/);
    const [read] = await thread.messages();
    expect(read).toEqual(message);
    expect(read?.contents).toEqual([
      { type: "text", text: "look" },
      { type: "file", fileId: "file_9", mediaType: "image/*" },
    ]);
  });

  test("refuses what a classic thread cannot hold before writing anything", async () => {
    const { thread } = await agentThreadWith(1);
    const refusals = [
      thread.append([
        { role: "user", text: "ok" },
        { role: "system", text: "be terse" },
      ]),
      thread.append({
        role: "assistant",
        contents: [{ type: "function_call", callId: "c", name: "f", arguments: {} }],
      }),
      thread.append({
        role: "user",
        contents: [{ type: "file", fileId: "file_1", mediaType: "application/pdf" }],
      }),
      thread.append({ role: "tool", text: "plain text is not a tool output" }),
    ];
    for (const refusal of refusals) await expect(refusal).rejects.toBeInstanceOf(UnsupportedOperationError);
    expect(await thread.messages()).toHaveLength(1);
  });

  test("forks by copying messages up to a point into a new classic thread", async () => {
    const { store, thread, stored } = await agentThreadWith(105);
    const fork = await thread.fork({ at: stored[101]?.id, id: "branch-1" });
    expect(fork.id).toBe("branch-1");
    expect(fork.toJSON()).toMatchObject({ agentId: "asst_echo", metadata: { team: "support" } });
    expect(fork.toJSON().threadId).not.toBe(thread.threadId);
    expect(texts(await fork.messages())).toEqual(texts(stored.slice(0, 102)));
    expect((await store.get("branch-1")).toJSON()).toEqual(fork.toJSON());
  });

  test("a fork that fails part way deletes its partial copy", async () => {
    const { thread } = await agentThreadWith(5);
    const threads = fixture.emulator.agents.threads.size;
    fixture.emulator.http.inject({ method: "POST", path: /\/messages$/, status: 500, after: 2 });
    await expect(thread.fork()).rejects.toThrow(/answered 500 to messages.create/);
    expect(fixture.emulator.agents.threads.size).toBe(threads);
  });

  test("rollback, checkpoints and time travel are refused by name", async () => {
    const { thread, stored } = await agentThreadWith(2);
    const rollback = thread.rollback(stored[0]?.id as string);
    await expect(rollback).rejects.toBeInstanceOf(UnsupportedOperationError);
    await expect(rollback).rejects.toMatchObject({ type: "foundry.thread", capability: "rollback" });
    await expect(thread.checkpoint()).rejects.toMatchObject({ capability: "checkpoints" });
    await expect(thread.fork({ at: { segment: "s", offset: 0, position: 0 } })).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
    await expect(thread.rollback("start")).rejects.toMatchObject({ capability: "rollback" });
    await expect(thread.at("start")).rejects.toBeInstanceOf(UnsupportedOperationError);
    await expect(thread.append({ role: "user", text: "x" }, { operationId: "op-1" })).rejects.toMatchObject({
      type: "foundry.thread",
      capability: "operationId",
    });
    expect(await thread.messages()).toHaveLength(2);
  });

  test("deletes the classic thread and its saved state", async () => {
    const { store, thread } = await agentThreadWith(1);
    await thread.delete();
    expect(fixture.emulator.agents.threads.has(thread.threadId)).toBe(false);
    await expect(store.get(thread.id)).rejects.toBeInstanceOf(ThreadNotFoundError);
    await expect(thread.messages()).rejects.toBeInstanceOf(FoundryNotFoundError);
    await expect(thread.refresh()).rejects.toBeInstanceOf(ThreadNotFoundError);
  });
});
