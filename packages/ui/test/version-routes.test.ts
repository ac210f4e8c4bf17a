import type { Message, Thread, ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessagePage, UiServer } from "../src/index.js";
import { apiOf, refusal } from "./raw-request.js";
import { type ServedTwice, servedTwice } from "./served-twice.js";

const texts = (messages: Message[]) =>
  messages.map((message) => (message.contents[0] as { text?: string }).text);

describe("versions of a message: read another branch, make it current", () => {
  let store: ThreadStore;
  let thread: Thread;
  let readOnly: UiServer;
  let writable: UiServer;
  let red: Message;
  let blue: Message;
  let green: Message;
  let warm: Message;

  let served: ServedTwice;

  beforeAll(async () => {
    served = await servedTwice(async (filled) => {
      thread = await filled.create({ id: "colours" });
      [, red, , warm] = (await thread.append([
        { role: "user", text: "Name a colour." },
        { role: "assistant", text: "Red." },
        { role: "user", text: "Why red?" },
        { role: "assistant", text: "It is warm." },
      ])) as [Message, Message, Message, Message];
      blue = (await thread.regenerate?.(red.id, { role: "assistant", text: "Blue." })) as Message;
      green = (await thread.regenerate?.(blue.id, { role: "assistant", text: "Green." })) as Message;
      await thread.append([
        { role: "user", text: "Why green?" },
        { role: "assistant", text: "It is calm." },
      ]);
    });
    ({ store, readOnly, writable } = served);
  });
  afterAll(() => served.close());

  const page = async (query: string): Promise<MessagePage> => {
    const response = await apiOf(readOnly).get(`/api/messages?id=colours&${query}`);
    expect(response.status, response.body).toBe(200);
    return JSON.parse(response.body);
  };

  it("marks a message with versions on the current branch: the one shown, the current one, how many", async () => {
    const current = await page("limit=50");
    expect(texts(current.messages)).toEqual(["Name a colour.", "Green.", "Why green?", "It is calm."]);
    expect(current.versions).toEqual({ [green.id]: { index: 2, current: 2, count: 3 } });
    expect(current.revision).toBe((await store.get("colours")).revision);
    expect(current).not.toHaveProperty("branch");
  });

  it("reads another version's branch without changing the thread", async () => {
    const before = await store.get("colours");
    const shown = await page(`version=${green.id}&index=0`);
    expect(texts(shown.messages)).toEqual(["Name a colour.", "Red.", "Why red?", "It is warm."]);
    expect(shown.length).toBe(4);
    expect(shown.branch).toMatchObject({
      messageId: green.id,
      version: { id: red.id, index: 0, current: false },
      count: 3,
      current: 2,
    });
    // The version shown is marked as shown; its branch's later messages have no versions to offer.
    expect(shown.versions).toEqual({ [red.id]: { index: 0, current: 2, count: 3 } });
    // Asked by the version on screen, as the page does after a first flip.
    const second = await page(`version=${red.id}&index=1&from=0`);
    expect(texts(second.messages)).toEqual(["Name a colour.", "Blue."]);
    const after = await store.get("colours");
    expect(after.revision).toBe(before.revision);
    expect(texts(await after.messages())).toEqual(["Name a colour.", "Green.", "Why green?", "It is calm."]);
  });

  it("refuses a bad version request with a typed 4xx in JSON", async () => {
    const api = apiOf(readOnly);
    const point = encodeURIComponent(JSON.stringify({ segment: "s", offset: 0, position: 0 }));
    const cases: Array<[string, number, string]> = [
      [`version=${green.id}&index=3`, 400, "UiRequestError"],
      [`version=${green.id}`, 400, "UiRequestError"],
      ["index=1", 400, "UiRequestError"],
      [`version=${green.id}&index=-1`, 400, "UiRequestError"],
      [`version=${green.id}&index=0&at=${point}`, 400, "UiRequestError"],
      ["version=no-such-message&index=0", 404, "MessageNotFoundError"],
    ];
    for (const [query, status, name] of cases) {
      const answer = refusal(await api.get(`/api/messages?id=colours&${query}`));
      expect(answer, query).toMatchObject({ status, name });
    }
    // "It is warm." lies further along Red's branch: not a version of a message on the current branch.
    const offBranch = refusal(await api.get(`/api/messages?id=colours&version=${warm.id}&index=0`));
    expect(offBranch).toMatchObject({ status: 409, name: "MessageOffBranchError" });
  });

  it("refuses make current in read-only mode, and with a stale revision; nothing is written", async () => {
    const seen = (await store.get("colours")).revision as number;
    const request = { id: "colours", ifRevision: seen, alternativeId: red.id, index: 0 };
    const refused = refusal(await apiOf(readOnly).post("/api/switch", request));
    expect(refused).toMatchObject({ status: 403, name: "UiRequestError" });
    // Another process moves the thread on after the page read it.
    const other = await store.get("colours");
    await other.update({ metadata: { touched: true } });
    const stale = refusal(await apiOf(writable).post("/api/switch", request));
    expect(stale).toMatchObject({ status: 409, name: "ConcurrencyError" });
    const after = await store.get("colours");
    expect(texts(await after.messages())).toEqual(["Name a colour.", "Green.", "Why green?", "It is calm."]);
    expect(after.revision).toBe(seen + 1);
  });

  it("refuses a malformed switch with a typed 400", async () => {
    const api = apiOf(writable);
    const revision = (await store.get("colours")).revision;
    for (const body of [
      { id: "colours", ifRevision: revision, index: 0 },
      { id: "colours", ifRevision: revision, alternativeId: red.id },
      { id: "colours", ifRevision: revision, alternativeId: red.id, index: -1 },
      { id: "colours", ifRevision: revision, alternativeId: red.id, index: 2 },
      { id: "colours", ifRevision: revision, alternativeId: 7, index: 0 },
    ]) {
      const answer = refusal(await api.post("/api/switch", body));
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    expect((await store.get("colours")).revision).toBe(revision);
  });

  it("makes a version current with the revision the page read", async () => {
    const shown = await page(`version=${green.id}&index=0`);
    const done = await apiOf(writable).post("/api/switch", {
      id: "colours",
      ifRevision: shown.revision,
      alternativeId: shown.branch?.version.id,
      index: shown.branch?.version.index,
    });
    expect(done.status, done.body).toBe(200);
    const after = await store.get("colours");
    expect(texts(await after.messages())).toEqual(["Name a colour.", "Red.", "Why red?", "It is warm."]);
    // The branch left is a version in its turn.
    const current = await page("limit=50");
    expect(current.versions).toEqual({ [red.id]: { index: 0, current: 0, count: 3 } });
  });
});
