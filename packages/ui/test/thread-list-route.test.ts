import { openStore, type ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThreadListPage } from "../src/index.js";
import { startUi, type UiServer } from "../src/index.js";
import { apiOf, refusal } from "./raw-request.js";
import { type ServedTwice, servedTwice } from "./served-twice.js";

describe("the threads list route: owners, newest first, titles", () => {
  let store: ThreadStore;
  let ui: UiServer;
  let api: ReturnType<typeof apiOf>;

  beforeAll(async () => {
    store = await openStore("memory:");
    for (let index = 0; index < 25; index++) {
      const id = `u1-${String(index).padStart(2, "0")}`;
      await store.create({ id, owner: "u-1", title: `Chat ${index}` });
    }
    for (const id of ["u2-a", "u2-b", "u2-c"]) await store.create({ id, owner: "u-2" });
    // The oldest of u-1's threads changes last: newest first, it leads.
    await (await store.get("u1-00")).append({ role: "user", text: "back again" });
    ui = await startUi({ store });
    api = apiOf(ui);
  });
  afterAll(async () => {
    await ui.close();
    await store.close();
  });

  const page = async (query: string): Promise<ThreadListPage> => {
    const response = await api.get(`/api/threads?${query}`);
    expect(response.status, response.body).toBe(200);
    return JSON.parse(response.body);
  };

  it("lists one owner's threads newest first, with titles and counts, a cursor page at a time", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const next: ThreadListPage = await page(
        `owner=u-1&order=updated&limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(next.items.length).toBeLessThanOrEqual(10);
      for (const item of next.items) expect(item.owner).toBe("u-1");
      seen.push(...next.items.map((item) => item.id));
      cursor = next.cursor;
    } while (cursor);
    const expected = await store.list({ owner: "u-1", order: "updated", direction: "desc", limit: 100 });
    expect(seen).toEqual(expected.items.map((item) => item.id));
    expect(seen).toHaveLength(25);
    expect(seen[0]).toBe("u1-00");
    const first = (await page("owner=u-1&order=updated&limit=1")).items[0];
    expect(first).toMatchObject({ id: "u1-00", title: "Chat 0", owner: "u-1", messageCount: 1 });
  });

  it("keeps the store's orders: created newest first, id ascending", async () => {
    const created = await page("owner=u-2&order=created");
    expect(created.items.map((item) => item.id)).toEqual(["u2-c", "u2-b", "u2-a"]);
    const byId = await page("owner=u-2&order=id");
    expect(byId.items.map((item) => item.id)).toEqual(["u2-a", "u2-b", "u2-c"]);
    expect(byId.items[0]).not.toHaveProperty("title");
  });

  it("refuses bad input with a typed 400 in JSON, never a stack trace", async () => {
    const cases: Array<[string, string, string]> = [
      ["order=sideways", "UiRequestError", "order must be"],
      ["direction=up", "UiRequestError", "direction must be"],
      [`owner=${"o".repeat(300)}`, "InvalidListOptionsError", "owner"],
      ["owner=u-1&cursor=forged", "InvalidListOptionsError", ""],
      ["limit=ten", "UiRequestError", "limit must be a whole number"],
    ];
    for (const [query, name, text] of cases) {
      const answer = refusal(await api.get(`/api/threads?${query}`));
      expect(answer, query).toMatchObject({ status: 400, name });
      expect(answer.message).toContain(text);
    }
    // A cursor is the listing's own: another owner's is refused, not read as a wrong page.
    const { cursor } = await page("owner=u-1&order=updated&limit=2");
    const other = refusal(await api.get(`/api/threads?owner=u-2&order=updated&cursor=${cursor}`));
    expect(other).toMatchObject({ status: 400, name: "InvalidListOptionsError" });
  });
});

describe("the title route", () => {
  let store: ThreadStore;
  let readOnly: UiServer;
  let writable: UiServer;
  let served: ServedTwice;

  beforeAll(async () => {
    served = await servedTwice(async (filled) => {
      await filled.create({ id: "named", owner: "u-1", title: "Before" });
    });
    ({ store, readOnly, writable } = served);
  });
  afterAll(() => served.close());

  const titleOf = async () => ((await store.list({ owner: "u-1" })).items[0] as { title?: string }).title;

  it("is refused in read-only mode, server-side, and nothing changes", async () => {
    const thread = await store.get("named");
    const answer = refusal(
      await apiOf(readOnly).post("/api/title", { id: "named", ifRevision: thread.revision, title: "After" }),
    );
    expect(answer).toMatchObject({ status: 403, name: "UiRequestError" });
    expect(answer.message).toContain("read-only; nothing was written");
    expect(await titleOf()).toBe("Before");
  });

  it("sets the title with ifRevision; a stale revision is a 409 and the title stays", async () => {
    const api = apiOf(writable);
    const thread = await store.get("named");
    const seen = thread.revision as number;
    const hostile = "<img src=x onerror=alert(1)> & co";
    const done = await api.post("/api/title", { id: "named", ifRevision: seen, title: hostile });
    expect(done.status, done.body).toBe(200);
    expect(JSON.parse(done.body).revision).toBeGreaterThan(seen);
    expect(await titleOf()).toBe(hostile);
    // Decided on the revision before that change: refused, and what the other change wrote stays.
    const stale = refusal(await api.post("/api/title", { id: "named", ifRevision: seen, title: "Mine" }));
    expect(stale).toMatchObject({ status: 409, name: "ConcurrencyError" });
    expect(await titleOf()).toBe(hostile);
    await thread.refresh();
    const cleared = await api.post("/api/title", { id: "named", ifRevision: thread.revision, title: null });
    expect(cleared.status, cleared.body).toBe(200);
    expect(await titleOf()).toBeUndefined();
  });

  it("refuses a malformed title change with a typed 400 and writes nothing", async () => {
    const api = apiOf(writable);
    const thread = await store.get("named");
    const revision = thread.revision;
    for (const body of [
      { id: "named", ifRevision: revision, title: 42 },
      { id: "named", ifRevision: revision },
      { id: "named", ifRevision: revision, title: "x".repeat(1001) },
      { id: "named", ifRevision: revision, title: "\ud800 lone" },
      { id: "named", title: "no revision" },
    ]) {
      const answer = refusal(await api.post("/api/title", body));
      expect(answer, JSON.stringify(body).slice(0, 80)).toMatchObject({
        status: 400,
        name: "UiRequestError",
      });
    }
    await thread.refresh();
    expect(thread.revision).toBe(revision);
  });
});
