import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type Checkpoint, type Message, openStore, type ThreadStore } from "@skein/thread-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { conversationWith, startHarness } from "../../adapter-openai/test/harness.js";
import { startUi, type UiServer } from "../src/index.js";
import { launchChromium } from "./chromium.js";
import { fillStore, XSS_ID, XSS_TEXTS, XSS_TITLE, XSS_URI } from "./fill-store.js";

const CLI = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url));
// Screenshots go to .test-results; SKEIN_UI_SCREENSHOTS=docs refreshes the README's (they change on every run).
const SCREENSHOTS = fileURLToPath(
  new URL(
    process.env.SKEIN_UI_SCREENSHOTS === "docs" ? "../docs/" : "../.test-results/screenshots/",
    import.meta.url,
  ),
);
const run = promisify(execFile);
const textsOf = (messages: Message[]) =>
  messages.map((message) => (message.contents[0] as { text?: string } | undefined)?.text);

describe("skein ui in chromium", () => {
  let directory: string;
  let storeUrl: string;
  let store: ThreadStore;
  let checkpoint: Checkpoint;
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    directory = mkdtempSync(join(tmpdir(), "skein-ui-"));
    storeUrl = `file:${directory}`;
    store = await openStore(storeUrl);
    ({ checkpoint } = await fillStore(store));
    ui = await startUi({ store, pollInterval: 250 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
    // Anything leaving for another host, any error in the page and anything the Content-Security-Policy
    // refused fails the test it happened in (checked after each test, so one test run alone checks it too).
    page.on("request", (request) => {
      if (!/^(http:\/\/127\.0\.0\.1:\d+\/|data:)/.test(request.url()))
        failures.push(`request to ${request.url()}`);
    });
    page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
    // Chromium's own "Refused to …" lines are not console calls; the page's securitypolicyviolation event is.
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) =>
        console.error(`Refused to load ${event.blockedURI || "inline code"}: ${event.violatedDirective}`),
      );
    });
    page.on("console", (message) => {
      if (message.text().startsWith("Refused to"))
        failures.push(`refused by the page's policy: ${message.text()}`);
    });
  });

  afterEach(() => {
    expect(failures.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await ui?.close();
    await store?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const open = async (hash = "") => {
    await page.goto(`${ui.url}${hash}`);
    await page.locator(".top .brand").waitFor();
  };
  const shoot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, name) });

  it("lists threads newest first with their titles, of one owner, a page at a time, by id prefix, in a scope", async () => {
    const ids = () => page.locator("a.thread-link").allTextContents();
    const newest = await store.list({ order: "updated", direction: "desc", limit: 50 });
    await open();
    await page.locator("a.thread-link").nth(49).waitFor();
    expect(await ids()).toEqual(newest.items.map((item) => item.id));
    expect(await page.locator('select[name="order"]').inputValue()).toBe("updated");

    // One owner's threads, newest first, paged with the store's cursors.
    const owned = await store.list({ owner: "u-bulk", order: "updated", direction: "desc", limit: 50 });
    await page.locator('input[name="owner"]').fill("u-bulk");
    await page.getByRole("button", { name: "search" }).click();
    await page.waitForFunction(
      (first) => document.querySelector("a.thread-link")?.textContent === first,
      owned.items[0]?.id,
    );
    expect(await ids()).toEqual(owned.items.map((item) => item.id));
    expect(await page.locator("td.owner").allTextContents()).toEqual(Array(50).fill("u-bulk"));
    await page.getByRole("button", { name: "next" }).click();
    await page.waitForFunction(() => document.querySelectorAll("a.thread-link").length === 5);
    const rest = await store.list({ owner: "u-bulk", order: "updated", limit: 50, cursor: owned.cursor });
    expect(await ids()).toEqual(rest.items.map((item) => item.id));
    await page.getByRole("button", { name: "previous" }).click();
    await page.waitForFunction(() => document.querySelectorAll("a.thread-link").length === 50);

    // u-7's threads: titles shown; the fork keeps its parent's owner and title.
    await page.locator('input[name="owner"]').fill("u-7");
    await page.getByRole("button", { name: "search" }).click();
    await page.waitForFunction(() => document.querySelectorAll("a.thread-link").length === 3);
    const rows = await page
      .locator("tbody tr")
      .evaluateAll((elements) =>
        elements.map((row) => [
          row.querySelector(".title")?.textContent,
          row.querySelector(".thread-link")?.textContent,
        ]),
      );
    expect(rows).toEqual([
      ["Colours", "colours"],
      ["Lisbon weather", "support-42"],
      ["Lisbon weather", "support-42-booking"],
    ]);

    // Choosing an order applies the whole form at once.
    await page.locator('input[name="owner"]').fill("");
    await page.locator('input[name="prefix"]').fill("support");
    await page.locator('select[name="order"]').selectOption("id");
    await page.waitForFunction(() => document.querySelectorAll("a.thread-link").length === 2);
    expect(await page.evaluate(() => location.hash)).toBe("#/?prefix=support&order=id");
    expect(await ids()).toEqual(["support-42", "support-42-booking"]);
    expect(await page.locator("tbody tr").first().locator("td").allTextContents()).toEqual([
      "Lisbon weather",
      "support-42",
      "u-7",
      "fs",
      "7",
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    ]);
    await page.screenshot({
      path: join(SCREENSHOTS, "threads.png"),
      clip: { x: 0, y: 0, width: 1100, height: 250 },
    });

    await page.locator('input[name="prefix"]').fill("");
    await page.locator('input[name="scope"]').fill("tenant-a");
    await page.getByRole("button", { name: "search" }).click();
    await page.locator("a.thread-link", { hasText: "tenant-thread" }).waitFor();
    expect(await ids()).toEqual(["tenant-thread"]);
    await page.locator("a.thread-link").click();
    await page.locator(".message-window").waitFor();
    expect(await page.locator(".thread-header").textContent()).toContain("scope tenant-a");
  });

  it("opens a thread as a chat: roles, authors, folded reasoning, each tool call beside its result, errors, usage", async () => {
    await open("#/?prefix=support");
    await page.locator("a.thread-link", { hasText: /^support-42$/ }).click();
    await page.locator("article.message").first().waitFor();
    expect(await page.locator("article.message .role").allTextContents()).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    const call = page.locator(".tool-call").first();
    expect(await call.textContent()).toContain("weather");
    expect(await call.locator(".tool-half").nth(0).locator("pre").textContent()).toContain(
      '"city": "Lisbon"',
    );
    expect(await call.locator(".tool-half").nth(1).locator("pre").textContent()).toContain('"celsius": 24');
    expect(await page.locator("details.reasoning").getAttribute("open")).toBeNull();
    expect(await page.locator(".author").first().textContent()).toBe("planner");
    expect(await page.locator(".error-part").textContent()).toContain(
      "rate_limited: The weather service is busy.",
    );
    expect(await page.locator(".usage").textContent()).toContain("inputTokens 412");
    await shoot("thread.png");
  });

  it("opens a remote thread on its newest messages and reads earlier ones back as the reader scrolls", async () => {
    // The real openai client against @skein/adapter-openai's loopback emulator.
    const harness = await startHarness();
    const remote = await startUi({ store: harness.store });
    try {
      const conversation = await conversationWith(harness, 120);
      await page.goto(`${remote.url}#/thread?id=${encodeURIComponent(conversation.id)}`);
      await page.getByText("message 119", { exact: true }).waitFor();
      expect(await page.locator("article.message").count()).toBe(50);
      expect(await page.locator(".window-bar .muted").first().textContent()).toBe("the last 50 messages");
      // Scrolled to the top, the window reads the page before it (50 messages, then the last 20). Each step
      // waits for more messages rather than an exact count: a reached edge may read on by itself, and a
      // loaded machine's polling can miss the short moment the window held 100.
      for (let shown = 50; shown < 120; ) {
        await page.locator(".messages").evaluate((box) => {
          box.scrollTop = 0;
        });
        await page.waitForFunction(
          (count) => document.querySelectorAll("article.message").length > count,
          shown,
        );
        shown = await page.locator("article.message").count();
        expect([100, 120]).toContain(shown);
      }
      expect(await page.locator('[data-edge="top"]').count()).toBe(0);
      expect(await page.locator("article.message").first().textContent()).toContain("message 0");
    } finally {
      await remote.close();
      await harness.close();
    }
  });

  it("shows image data inline and files and links as text", async () => {
    await open("#/thread?id=parts");
    await page.locator("img.data-image").waitFor();
    expect(await page.locator("img.data-image").getAttribute("src")).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(
      await page.locator("img.data-image").evaluate((image) => (image as HTMLImageElement).naturalWidth),
    ).toBe(1);
    expect(await page.locator(".part", { hasText: "file" }).textContent()).toContain("booking.pdf");
    expect(await page.locator(".uri").textContent()).toBe("https://example.com/porto");
    expect(await page.locator("article a").count()).toBe(0);
  });

  it("opens a 3,000-message thread on its last page and reads more only as the reader scrolls", async () => {
    await open("#/thread?id=long");
    await page.getByText("message 2999", { exact: true }).waitFor();
    expect(await page.locator("article.message").count()).toBe(50);
    expect(await page.locator('[data-edge="top"]').textContent()).toBe("2950 earlier messages");
    // Each scroll to the top reads one more page, until the window holds its most.
    for (let round = 0; round < 6; round++) {
      const before = await page.locator("article.message").count();
      await page.locator(".messages").evaluate((element) => {
        element.scrollTop = 0;
      });
      await page.waitForFunction((count) => {
        const now = document.querySelectorAll("article.message").length;
        return now > count || now >= 250;
      }, before);
    }
    const shown = await page.locator("article.message").count();
    expect(shown).toBe(250);
    expect(await page.locator('[data-edge="bottom"]').textContent()).toMatch(/^\d+ later messages$/);
    await page.locator('input[aria-label="go to message number"]').fill("1");
    await page.getByRole("button", { name: "go" }).click();
    await page.getByText("message 0", { exact: true }).waitFor();
    expect(await page.locator("article.message").count()).toBe(50);
  });

  it("draws the history graph; a click on a checkpoint shows the thread as it was there, and two points compare", async () => {
    await open("#/thread?id=support-42&tab=history");
    const node = page.locator(`g.node.checkpoint`);
    await node.waitFor();
    expect(await node.textContent()).toContain(`${checkpoint.id} "answered"`);
    expect(await page.locator("g.node").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("abandoned")]),
    );
    await node.click();
    await page.locator(".snapshot article.message").first().waitFor();
    expect(await page.locator(".snapshot b").first().textContent()).toBe(
      "the thread as it was at #5 (read-only)",
    );
    expect(await page.locator(".snapshot article.message").count()).toBe(5);
    expect(await page.locator(".snapshot").textContent()).not.toContain("And in Porto?");

    await page.getByRole("button", { name: "mark for comparison" }).click();
    await page.locator("g.node.head").click();
    await page.getByRole("button", { name: "compare with #5" }).click();
    await page.locator(".comparison").waitFor();
    expect(await page.locator(".comparison p").textContent()).toContain("The first 5 messages are the same");
    expect(await page.locator(".compare-side").nth(1).textContent()).toContain("And in Porto?");

    await page.getByLabel("forks of this thread").check();
    await page.locator("g.node.fork-tip").waitFor();
    expect(await page.locator("g.node.fork-tip").textContent()).toContain("fork support-42-booking");
    await page.locator("g.node.checkpoint").click();
    await page.locator(".snapshot article.message").first().waitFor();
    await shoot("history.png");

    // The fork's own graph leads back to the thread it came from.
    await page.locator("g.node.fork-tip").click();
    await page.getByRole("link", { name: "open fork" }).click();
    await page.locator("g.node", { hasText: "forked from support-42" }).click();
    await page.getByRole("link", { name: "open parent" }).click();
    await page.waitForFunction(
      () => document.querySelector(".thread-header h2")?.textContent === "support-42",
    );
  });

  it("shows what view({ maxTokens }) sends, the dropped messages greyed, tool calls kept whole", async () => {
    await open("#/thread?id=support-42&tab=context");
    await page.locator(".context-summary").waitFor();
    expect(await page.locator(".context-summary").textContent()).toMatch(/^sends 7 of 7 messages/);
    expect(await page.locator("article.message.dropped").count()).toBe(0);
    await page.locator('input[name="maxTokens"]').fill("60");
    await page.locator('input[name="maxTokens"]').press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("article.message.dropped").length > 0);
    const roles = await page
      .locator("article.message")
      .evaluateAll((elements) =>
        elements.map(
          (element) =>
            `${element.querySelector(".role")?.textContent}:${element.classList.contains("dropped")}`,
        ),
      );
    // The system message stays; the tool result is never kept without its call.
    expect(roles[0]).toBe("system:false");
    expect(roles.indexOf("tool:false") === -1 || roles[2] === "assistant:false").toBe(true);
    const summary = await page.locator(".context-summary").textContent();
    expect(summary).toMatch(/^sends [1-6] of 7 messages/);
    await shoot("context.png");
    await page.getByLabel("keep system messages").uncheck();
    await page.waitForFunction(() =>
      document.querySelector("article.message.role-system")?.classList.contains("dropped"),
    );
  });

  it("updates an open thread when another process appends to it", async () => {
    await open("#/thread?id=support-42");
    await page.getByText("And in Porto?").waitFor();
    await run("node", [
      CLI,
      "append",
      "support-42",
      "--text",
      "Appended by another process",
      "--store",
      storeUrl,
    ]);
    await page.getByText("Appended by another process").waitFor({ timeout: 90_000 });
    expect(await page.locator(".thread-header").textContent()).toContain("8 messages");
  });

  it("renders hostile content as text: no script runs, no javascript: link exists", async () => {
    await open("#/thread?id=xss");
    await page.locator("article.message").first().waitFor();
    const texts = await page.locator("article.message .text").allTextContents();
    expect(texts).toEqual(XSS_TEXTS);
    expect(await page.locator(".uri").textContent()).toBe(XSS_URI);
    expect(await page.locator(".author").textContent()).toBe("<b>bold author</b>");
    expect(await page.locator(".tool-call b").textContent()).toBe("<script>x</script>");
    expect(
      await page.locator("article script, article img[onerror], a[href^='javascript:'], article b b").count(),
    ).toBe(0);
    // SVG is never drawn from a message (it can hold script); it is described instead.
    expect(await page.locator("img.data-image").count()).toBe(0);
    await open();
    await page.locator('input[name="prefix"]').fill("<img");
    await page.getByRole("button", { name: "search" }).click();
    await page.locator("a.thread-link").first().waitFor();
    expect(await page.locator("a.thread-link").allTextContents()).toEqual([XSS_ID]);
    await page.locator("a.thread-link").click();
    await page.locator(".thread-header h2").waitFor();
    expect(await page.locator(".thread-header h2").textContent()).toBe(XSS_ID);
    // A title is text too, in the list and on its thread's page.
    await open();
    await page.locator('input[name="prefix"]').fill("xss");
    await page.getByRole("button", { name: "search" }).click();
    await page.waitForFunction(() => document.querySelectorAll("a.thread-link").length === 1);
    expect(await page.locator("td.title").textContent()).toBe(XSS_TITLE);
    expect(await page.locator("td.title *").count()).toBe(0);
    await page.locator("a.thread-link").click();
    await page.locator(".thread-title .title-text").waitFor();
    expect(await page.locator(".thread-title .title-text").textContent()).toBe(XSS_TITLE);
    expect(await page.locator(".thread-title .title-text *").count()).toBe(0);
    expect(await page.evaluate(() => (window as { __skeinXss?: unknown }).__skeinXss)).toBeUndefined();
  });

  it("refuses the page and the API without the token", async () => {
    const bare = await page.goto(`http://127.0.0.1:${ui.port}/`);
    expect(bare?.status()).toBe(401);
    expect(await page.textContent("body")).toContain("Missing or wrong access token");
    const wrong = await page.goto(`http://127.0.0.1:${ui.port}/?token=${"x".repeat(43)}`);
    expect(wrong?.status()).toBe(401);
    await open();
    const status = await page.evaluate(async () => (await fetch("/api/threads")).status);
    expect(status).toBe(401);
  });

  it("shows a workflow's steps as a timeline and its sub-threads side by side, and says what it cannot read", async () => {
    await open("#/thread?id=trip-plan&tab=workflow");
    await page.locator(".timeline .step").first().waitFor();
    expect(await page.locator(".timeline .step").allTextContents()).toEqual([
      expect.stringMatching(/^done\s*plan in planner/),
      expect.stringMatching(/^running\s*review in critic/),
      expect.stringMatching(/^next 1\s*book in planner/),
    ]);
    await page.locator('.sub-thread[data-key="planner"] article.message').first().waitFor();
    expect(await page.locator(".sub-thread h4").allTextContents()).toEqual([
      "planner fs",
      "critic fs",
      "bookings foundry.conversation",
    ]);
    expect(await page.locator('.sub-thread[data-key="critic"]').textContent()).toContain(
      "Day 3 needs a car.",
    );
    expect(await page.locator('.sub-thread[data-key="bookings"] .unreadable').textContent()).toContain(
      "npm install @skein/adapter-foundry",
    );
    await shoot("workflow.png");
  });

  it("with write: forks from a graph point, and refuses a rollback decided on a revision that moved", async () => {
    const writable = await startUi({ store, write: true, pollInterval: 60_000 });
    try {
      await page.goto(`${writable.url}#/thread?id=support-42&tab=history`);
      await page.locator("g.node.checkpoint").click();
      const reread = page.waitForResponse((response) => response.url().includes("/api/thread?"));
      await page.getByRole("button", { name: "fork here" }).click();
      await page.locator(".write-status").waitFor();
      const forked = await page.locator(".write-status").textContent();
      expect(forked).toMatch(/^Forked support-42 into \S+\. open$/);
      const forkId = /into (\S+)\./.exec(forked ?? "")?.[1] as string;
      expect((await (await store.get(forkId)).messages()).length).toBe(5);
      // The page re-reads the thread after a write; that read must be over before the thread moves on elsewhere.
      await reread;

      // Another process appends after the page read the revision: the rollback must not happen.
      await run("node", [CLI, "append", "support-42", "--text", "A late change", "--store", storeUrl]);
      const before = (await (await store.get("support-42")).messages()).length;
      await page.getByRole("button", { name: "roll back here" }).click();
      await page.locator(".write-status.failed").waitFor();
      expect(await page.locator(".write-status.failed").textContent()).toContain("nothing was written");
      expect((await (await store.get("support-42")).messages()).length).toBe(before);
    } finally {
      await writable.close();
    }
  });

  const titleOf = async (id: string) =>
    (await store.list({ prefix: id, order: "id", limit: 1 })).items[0]?.title;
  const messageTexts = () => page.locator("article.message .text").allTextContents();
  const CURRENT_BRANCH = ["Name a colour.", "Green.", "Why green?", "It is calm."];

  it('flips a message between its versions ("< i / n >"), read-only: the thread stays as it is', async () => {
    const before = await store.get("colours");
    await open("#/thread?id=colours");
    await page.getByText("It is calm.").waitFor();
    expect(await messageTexts()).toEqual(CURRENT_BRANCH);
    const versions = page.locator("article.message .versions");
    expect(await versions.count()).toBe(1);
    expect(await versions.textContent()).toBe("< 3 / 3 >");
    expect(await page.locator(".thread-title .title-text").textContent()).toBe("Colours");
    // Read-only: no title edit and no "make current".
    expect(await page.getByRole("button", { name: "edit title" }).count()).toBe(0);

    await page.getByRole("button", { name: "previous version" }).click();
    await page.getByText("Blue.").waitFor();
    expect(await messageTexts()).toEqual(["Name a colour.", "Blue."]);
    expect(await versions.textContent()).toBe("< 2 / 3 >");
    expect(await page.locator(".branch-banner").textContent()).toContain(
      "version 2 of 3 of message #2, read-only",
    );
    expect(await page.getByRole("button", { name: "make current" }).count()).toBe(0);

    await page.getByRole("button", { name: "previous version" }).click();
    await page.getByText("It is warm.").waitFor();
    expect(await messageTexts()).toEqual(["Name a colour.", "Red.", "Why red?", "It is warm."]);
    expect(await versions.textContent()).toBe("< 1 / 3 >");
    expect(await page.getByRole("button", { name: "previous version" }).isDisabled()).toBe(true);
    await shoot("versions.png");

    await page.getByRole("button", { name: "back to current" }).click();
    await page.getByText("It is calm.").waitFor();
    expect(await messageTexts()).toEqual(CURRENT_BRANCH);
    expect(await page.locator(".branch-banner").count()).toBe(0);

    const after = await store.get("colours");
    expect(after.revision).toBe(before.revision);
    expect((await after.messages()).map((message) => message.id)).toEqual(
      (await before.messages()).map((message) => message.id),
    );
  });

  it("refuses writes server-side in read-only mode, whatever the page sends", async () => {
    await open("#/thread?id=colours");
    await page.getByText("It is calm.").waitFor();
    const thread = await store.get("colours");
    const [version] = (await thread.alternatives?.((await thread.messages())[1]?.id as string)) ?? [];
    const statuses = await page.evaluate(
      async ({ revision, alternativeId }) => {
        const token = document.querySelector<HTMLMetaElement>('meta[name="skein-token"]')?.content ?? "";
        const post = async (path: string, body: unknown) =>
          (
            await fetch(path, {
              method: "POST",
              headers: { "x-skein-token": token, "content-type": "application/json" },
              body: JSON.stringify(body),
            })
          ).status;
        return [
          await post("/api/title", { id: "colours", ifRevision: revision, title: "Hijacked" }),
          await post("/api/switch", { id: "colours", ifRevision: revision, alternativeId, index: 0 }),
        ];
      },
      { revision: thread.revision, alternativeId: version?.id },
    );
    expect(statuses).toEqual([403, 403]);
    const after = await store.get("colours");
    expect(after.revision).toBe(thread.revision);
    expect(await titleOf("colours")).toBe("Colours");
  });

  it("with write: edits a title, and shows a title changed elsewhere meanwhile as a conflict", async () => {
    const writable = await startUi({ store, write: true, pollInterval: 60_000 });
    try {
      await page.goto(`${writable.url}#/thread?id=colours`);
      await page.getByRole("button", { name: "edit title" }).click();
      await page.getByLabel("title").fill("<b>Colours</b> & shades");
      await page.getByRole("button", { name: "save title" }).click();
      await page.locator(".title-text", { hasText: "shades" }).waitFor();
      expect(await page.locator(".thread-title .title-text").textContent()).toBe("<b>Colours</b> & shades");
      expect(await titleOf("colours")).toBe("<b>Colours</b> & shades");

      // Editing starts from the revision on screen; another process renames the thread meanwhile.
      await page.getByRole("button", { name: "edit title" }).click();
      const other = await store.get("colours");
      await other.update({ title: "Renamed elsewhere" }, { ifRevision: other.revision });
      await page.getByLabel("title").fill("Mine");
      await page.getByRole("button", { name: "save title" }).click();
      await page.locator(".title-status.failed").waitFor();
      expect(await page.locator(".title-status.failed").textContent()).toMatch(
        /^Conflict: .*nothing was written/,
      );
      expect(await titleOf("colours")).toBe("Renamed elsewhere");
    } finally {
      await writable.close();
    }
  });

  it("with write: makes a version current with ifRevision; a stale one is a conflict and writes nothing", async () => {
    const writable = await startUi({ store, write: true, pollInterval: 60_000 });
    try {
      await page.goto(`${writable.url}#/thread?id=colours`);
      await page.getByText("It is calm.").waitFor();
      await page.getByRole("button", { name: "previous version" }).click();
      await page.getByText("Blue.").waitFor();

      // Another process appends after the page read the branch: "make current" must not switch.
      await run("node", [CLI, "append", "colours", "--text", "A late question", "--store", storeUrl]);
      const moved = await store.get("colours");
      await page.getByRole("button", { name: "make current" }).click();
      await page.locator(".branch-banner .write-status.failed").waitFor();
      expect(await page.locator(".branch-banner .write-status.failed").textContent()).toMatch(
        /^Conflict: .*nothing was written/,
      );
      const unchanged = await store.get("colours");
      expect(unchanged.revision).toBe(moved.revision);
      expect(textsOf(await unchanged.messages()).at(-1)).toBe("A late question");

      // Read again, the same choice goes through: Blue's branch is the thread's now.
      await page.reload();
      await page.getByText("A late question").waitFor();
      await page.getByRole("button", { name: "previous version" }).click();
      await page.getByText("Blue.").waitFor();
      await page.getByRole("button", { name: "make current" }).click();
      await page.waitForFunction(() => document.querySelector(".branch-banner") === null);
      await page.locator("article.message .versions", { hasText: "< 2 / 3 >" }).waitFor();
      expect(await messageTexts()).toEqual(["Name a colour.", "Blue."]);
      const switched = await store.get("colours");
      expect(textsOf(await switched.messages())).toEqual(["Name a colour.", "Blue."]);
      expect(await page.locator(".versions.other").count()).toBe(0);
    } finally {
      await writable.close();
    }
  });
});
