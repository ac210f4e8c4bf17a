import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LogThread, type Message, messageText, openStore, type ThreadStore } from "@skein/thread-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUi, type UiServer } from "../src/index.js";
import { launchChromium } from "./chromium.js";

/** A streaming message's bubble on the page. */
const bubble = (page: Page, id: string) => page.locator(`article.message[data-id="${id}"]`);

describe("a message that streams, in skein ui", () => {
  let directory: string;
  /** The writer's store: the UI opens the same files on its own, as another process would. */
  let writer: ThreadStore;
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "skein-ui-streaming-"));
    writer = await openStore(`file:${directory}`);
    // A slow poll: text that grows between two polls can only have come through the follow stream.
    ui = await startUi({ store: `file:${directory}`, pollInterval: 60_000 });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await ui?.close();
    await writer?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  async function threadWithQuestion(id: string): Promise<LogThread> {
    const thread = (await writer.create({ id })) as LogThread;
    await thread.append({ role: "user", text: "Tell me a story." });
    return thread;
  }

  it("renders live as it grows, marked streaming, then as the ended message", async () => {
    const thread = await threadWithQuestion("story");
    const reply = await thread.beginMessage({ role: "assistant", id: "reply-1", flushMs: 10 });
    await reply.write("Once upon");
    await page.goto(`${ui.url}#/thread?id=story`);
    const shown = bubble(page, "reply-1");
    await expect.poll(() => shown.locator(".text").textContent()).toBe("Once upon");
    expect(await shown.locator(".message-status").textContent()).toBe("streaming");
    // The question stays above it; the streaming message is counted once shown, though the log holds only the question.
    expect(
      await page.locator("article.message").evaluateAll((all) => all.map((one) => one.dataset.id)),
    ).toEqual([expect.any(String), "reply-1"]);
    expect(await page.locator(".window-bar .muted").first().textContent()).toBe("messages 1–2 of 2");

    await reply.write(" a time");
    await expect.poll(() => shown.locator(".text").textContent()).toBe("Once upon a time");
    await reply.write({ type: "reasoning", text: "an ending" });
    await reply.write(", the end.");
    await expect
      .poll(() => shown.locator(".text").allTextContents())
      .toEqual(["Once upon a time", "an ending", ", the end."]);
    expect(await shown.locator(".message-status").textContent()).toBe("streaming");

    await reply.end();
    // Ended: no status any more, the whole message as the thread holds it.
    await expect.poll(() => shown.locator(".message-status").count()).toBe(0);
    expect(await shown.locator(".text").allTextContents()).toEqual([
      "Once upon a time",
      "an ending",
      ", the end.",
    ]);
    expect(failures.splice(0)).toEqual([]);
  });

  it("shows a reply that ended early as interrupted, with everything it received", async () => {
    const thread = await threadWithQuestion("cut");
    const reply = await thread.beginMessage({ role: "assistant", id: "reply-2", flushMs: 10 });
    await reply.write("Half a");
    await page.goto(`${ui.url}#/thread?id=cut`);
    const shown = bubble(page, "reply-2");
    await expect.poll(() => shown.locator(".message-status").textContent()).toBe("streaming");
    await reply.write(" sentence");
    await expect.poll(() => shown.locator(".text").textContent()).toBe("Half a sentence");
    await reply.fail(new Error("the model went away"));
    await expect.poll(() => shown.locator(".message-status").textContent()).toBe("interrupted");
    expect(await shown.locator(".text").textContent()).toBe("Half a sentence");
    expect(await shown.textContent()).toContain("the model went away");
    expect(failures.splice(0)).toEqual([]);
  });

  it("pages a thread whose reply streams: the log's last messages, then the reply, none pushed out", async () => {
    const thread = (await writer.create({ id: "paged" })) as LogThread;
    await thread.append(
      Array.from({ length: 60 }, (_, index) => ({ role: "user" as const, text: `m${index}` })),
    );
    // maxBatchBytes 1: each write is stored before it resolves.
    const reply = await thread.beginMessage({ role: "assistant", id: "reply-5", maxBatchBytes: 1 });
    await reply.write("so far");
    const empty = (await writer.create({ id: "empty" })) as LogThread;
    const greeting = await empty.beginMessage({ role: "assistant", id: "greeting", maxBatchBytes: 1 });
    await greeting.write("Hello");
    const page = async (query: string) => {
      const response = await fetch(`http://127.0.0.1:${ui.port}/api/messages?${query}`, {
        headers: { "x-skein-token": ui.token },
      });
      const body = (await response.json()) as { from: number; length: number; messages: Message[] };
      return {
        from: body.from,
        length: body.length,
        shown: body.messages.map((one) => `${messageText(one)}${one.status ? `:${one.status}` : ""}`),
      };
    };
    const texts = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, index) => `m${from + index}`);

    expect(await page("id=paged&limit=50")).toEqual({
      from: 10,
      length: 60,
      shown: [...texts(10, 60), "so far:streaming"],
    });
    expect(await page("id=paged&from=0&limit=50")).toEqual({ from: 0, length: 60, shown: texts(0, 50) });
    expect(await page("id=empty")).toEqual({ from: 0, length: 0, shown: ["Hello:streaming"] });
    await reply.end();
    await greeting.end();
    expect(await page("id=paged&limit=50")).toEqual({
      from: 11,
      length: 61,
      shown: [...texts(11, 60), "so far"],
    });
  });

  it("serves /api/follow as server-sent events, resuming from Last-Event-ID; an unknown message is a 404", async () => {
    const thread = await threadWithQuestion("resume");
    const reply = await thread.beginMessage({ role: "assistant", id: "reply-3", flushMs: 10 });
    for (const part of ["a", "b", "c"]) await reply.write(part);
    const ended = reply.end();
    await ended;
    const headers = { "x-skein-token": ui.token };
    const base = `http://127.0.0.1:${ui.port}/api/follow?id=resume&message=reply-3`;

    // An ended message: only its end.
    const whole = await fetch(base, { headers });
    expect(whole.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await whole.text()).toMatch(/^event: end\ndata: \{"message":\{"id":"reply-3"/);

    const streaming = await threadWithQuestion("resume-live");
    // Each delta its own batch, stored when `write` returns: a client can only hold offsets that were in
    // batches (an `end` without contents of its own lands its unflushed deltas in the message alone).
    const live = await streaming.beginMessage({ role: "assistant", id: "reply-4", maxBatchBytes: 1 });
    for (const part of ["a", "b", "c"]) await live.write(part);
    // Its headers come once the server follows the reply, which is still open: the rest is live.
    const response = await fetch(`http://127.0.0.1:${ui.port}/api/follow?id=resume-live&message=reply-4`, {
      headers: { ...headers, "last-event-id": "2" },
    });
    await live.write("d");
    await live.end();
    const text = await response.text();
    const frames = text.split("\n\n").filter(Boolean);
    expect(frames.slice(0, 2)).toEqual([
      'id: 3\nevent: delta\ndata: {"offset":2,"delta":{"type":"text","text":"c"}}',
      'id: 4\nevent: delta\ndata: {"offset":3,"delta":{"type":"text","text":"d"}}',
    ]);
    expect(frames[2]).toMatch(/^event: end\ndata: \{"message":\{"id":"reply-4".*"text":"abcd"/);

    const missing = await fetch(`http://127.0.0.1:${ui.port}/api/follow?id=resume&message=nope`, { headers });
    expect(missing.status).toBe(404);
  });
});
