import { type Message, openStore, type ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUi, type UiServer } from "../src/index.js";
import { call } from "./raw-request.js";
import { type ServedTwice, servedTwice } from "./served-twice.js";

describe("the ui server", () => {
  let store: ThreadStore;
  let readOnly: UiServer;
  let writable: UiServer;

  let served: ServedTwice;

  beforeAll(async () => {
    served = await servedTwice(async (filled) => {
      const thread = await filled.create({ id: "t" });
      await thread.append([
        { role: "user", text: "one" },
        { role: "assistant", text: "two" },
      ]);
    });
    ({ store, readOnly, writable } = served);
  });
  afterAll(() => served.close());

  it("binds to 127.0.0.1 and prints a URL holding a long random token", () => {
    expect(readOnly.url).toBe(`http://127.0.0.1:${readOnly.port}/?token=${readOnly.token}`);
    expect(readOnly.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(writable.token).not.toBe(readOnly.token);
  });

  it("refuses every request without the token, or with a wrong one", async () => {
    for (const path of [
      "/",
      "/assets/app.js",
      "/assets/app.css",
      "/api/info",
      "/api/threads",
      "/api/thread?id=t",
      "/api/live?id=t",
      "/api/messages?id=t",
      "/api/view?id=t",
      "/api/graph?id=t",
    ]) {
      expect((await call(readOnly.port, path)).status).toBe(401);
      expect(
        (await call(readOnly.port, `${path}${path.includes("?") ? "&" : "?"}token=${writable.token}`)).status,
      ).toBe(401);
      expect(
        (await call(readOnly.port, path, { headers: { "x-skein-token": `${readOnly.token}x` } })).status,
      ).toBe(401);
    }
    for (const action of ["fork", "checkpoint", "rollback"]) {
      const body = JSON.stringify({ id: "t", ifRevision: 1 });
      const headers = { "content-type": "application/json" };
      expect((await call(writable.port, `/api/${action}`, { method: "POST", headers, body })).status).toBe(
        401,
      );
      const wrong = { ...headers, "x-skein-token": readOnly.token };
      expect(
        (await call(writable.port, `/api/${action}`, { method: "POST", headers: wrong, body })).status,
      ).toBe(401);
    }
    expect(await (await store.get("t")).history()).toEqual([]);
    const refused = await call(readOnly.port, "/api/threads");
    expect(JSON.parse(refused.body).error.message).toContain("access token");
    expect(refused.body).not.toContain(readOnly.token);
  });

  it("answers with the token, in the query or the header, with a strict Content-Security-Policy", async () => {
    const page = await call(readOnly.port, `/?token=${readOnly.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module" src="/assets/app.js?token=');
    const policy = String(page.headers["content-security-policy"]);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain("unsafe-inline");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    const threads = await call(readOnly.port, "/api/threads", {
      headers: { "x-skein-token": readOnly.token },
    });
    expect(JSON.parse(threads.body).items).toEqual([expect.objectContaining({ id: "t", messageCount: 2 })]);
  });

  it("takes a point's length from the thread, never from the position the request carries", async () => {
    // In a scope of its own, so the other tests' listings of the store stay as they are.
    const thread = await store.scope("points").create({ id: "points" });
    await thread.append([
      { role: "user", text: "one" },
      { role: "assistant", text: "two" },
    ]);
    const { point } = await thread.checkpoint("two");
    await thread.append({ role: "user", text: "three" });
    const headers = { "x-skein-token": readOnly.token };
    const at = (position: number) => encodeURIComponent(JSON.stringify({ ...point, position }));
    const page = await call(readOnly.port, `/api/messages?id=points&scope=points&at=${at(point.position)}`, {
      headers,
    });
    expect(JSON.parse(page.body)).toMatchObject({ from: 0, length: 2 });
    expect(JSON.parse(page.body).messages).toHaveLength(2);
    expect(page.body).not.toContain("three");
    for (const route of ["messages", "view", "compare"]) {
      const query = route === "compare" ? `a=head&b=${at(999999)}` : `at=${at(999999)}`;
      const madeUp = await call(readOnly.port, `/api/${route}?id=points&scope=points&${query}`, { headers });
      expect(madeUp.status).toBe(400);
      expect(JSON.parse(madeUp.body).error.message).toContain("position 2, not 999999");
    }
  });

  it("refuses a Host that is not loopback, even with the token (DNS rebinding)", async () => {
    const response = await call(readOnly.port, `/api/info?token=${readOnly.token}`, {
      headers: { host: `evil.example:${readOnly.port}` },
    });
    expect(response.status).toBe(403);
  });

  it("is read-only unless started with write: writes are refused and nothing changes", async () => {
    const response = await call(readOnly.port, "/api/checkpoint", {
      method: "POST",
      headers: { "x-skein-token": readOnly.token, "content-type": "application/json" },
      body: JSON.stringify({ id: "t", ifRevision: 1 }),
    });
    expect(response.status).toBe(403);
    expect(await (await store.get("t")).history()).toEqual([]);
  });

  it("refuses a write from another origin, and one without ifRevision", async () => {
    const headers = { "x-skein-token": writable.token, "content-type": "application/json" };
    const foreign = await call(writable.port, "/api/checkpoint", {
      method: "POST",
      headers: { ...headers, origin: "http://evil.example" },
      body: JSON.stringify({ id: "t", ifRevision: 1 }),
    });
    expect(foreign.status).toBe(403);
    const unversioned = await call(writable.port, "/api/checkpoint", {
      method: "POST",
      headers,
      body: JSON.stringify({ id: "t" }),
    });
    expect(unversioned.status).toBe(400);
    expect(await (await store.get("t")).history()).toEqual([]);
  });

  it("writes with ifRevision: a stale revision is a 409 and writes nothing", async () => {
    const headers = { "x-skein-token": writable.token, "content-type": "application/json" };
    const post = (action: string, body: object) =>
      call(writable.port, `/api/${action}`, { method: "POST", headers, body: JSON.stringify(body) });
    const thread = await store.get("t");
    const made = await post("checkpoint", { id: "t", ifRevision: thread.revision, label: "seen" });
    expect(made.status).toBe(200);
    expect(JSON.parse(made.body).message).toMatch(/^Checkpoint cp_\S+ made at #2\.$/);
    const [checkpoint] = (await thread.history()).flatMap((event) =>
      event.kind === "checkpoint" ? [event.checkpoint] : [],
    );
    await thread.append({ role: "user", text: "three" });
    const stale = (thread.revision ?? 0) - 1;
    for (const action of ["checkpoint", "fork", "rollback"]) {
      const response = await post(action, { id: "t", ifRevision: stale, checkpointId: checkpoint?.id });
      expect(response.status, action).toBe(409);
      expect(JSON.parse(response.body).error.name).toBe("ConcurrencyError");
    }
    expect((await store.list()).items.map((item) => item.id)).toEqual(["t"]);
    expect((await thread.history()).length).toBe(1);
    expect((await thread.messages()).length).toBe(3);
    const rolled = await post("rollback", {
      id: "t",
      ifRevision: thread.revision,
      checkpointId: checkpoint?.id,
    });
    expect(rolled.status).toBe(200);
    expect((await thread.messages()).length).toBe(2);
  });

  it("reads one page of a long thread by position, never past what was asked", async () => {
    const long = await store.create({ id: "long" });
    await long.append(
      Array.from({ length: 1000 }, (_, index) => ({ role: "user" as const, text: `m${index}` })),
    );
    const page = await call(readOnly.port, `/api/messages?id=long&from=500&limit=3&token=${readOnly.token}`);
    const body = JSON.parse(page.body);
    expect(body.from).toBe(500);
    expect(body.length).toBe(1000);
    expect(
      body.messages.map((message: { contents: Array<{ text: string }> }) => message.contents[0]?.text),
    ).toEqual(["m500", "m501", "m502"]);
    const last = JSON.parse(
      (await call(readOnly.port, `/api/messages?id=long&limit=2&token=${readOnly.token}`)).body,
    );
    expect(last.from).toBe(998);
  });

  it("opens, pages, polls and views a 20,000-message thread reading only what it shows", async () => {
    // A memory store is a LocalStore over its log driver; only the driver's read is needed here.
    type Reader = { readSegment(id: string, from: number, to: number): Promise<Message[]> };
    const counted = (await openStore("memory:")) as ThreadStore & { driver: Reader };
    const big = await counted.create({ id: "big" });
    await big.append(
      Array.from({ length: 20_000 }, (_, index) => ({ role: "user" as const, text: `m${index}` })),
    );
    // The store's own driver, counting the messages it hands out.
    let read = 0;
    const driver = counted.driver;
    const readSegment = driver.readSegment.bind(driver);
    driver.readSegment = async (id: string, from: number, to: number) => {
      const messages = await readSegment(id, from, to);
      read += messages.length;
      return messages;
    };
    const server = await startUi({ store: counted });
    const get = async (path: string) => {
      read = 0;
      const response = await call(server.port, `${path}&token=${server.token}`);
      expect(response.status, path).toBe(200);
      return { body: JSON.parse(response.body), read };
    };
    try {
      expect((await get("/api/thread?id=big")).read).toBe(0);
      expect((await get("/api/live?id=big")).read).toBe(0);
      const last = await get("/api/messages?id=big&limit=50");
      expect(last.body.from).toBe(19_950);
      expect(last.read).toBe(50);
      expect((await get("/api/messages?id=big&from=10000&limit=50")).read).toBe(50);
      const view = await get("/api/view?id=big&maxTokens=100");
      expect(view.body.keptIds.length).toBeGreaterThan(0);
      expect(view.read).toBeLessThan(100);
    } finally {
      await server.close();
      await counted.close();
    }
  });
});
