import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { ExampleChat } from "../ai-sdk-chat/chat-client.mjs";
import { type ChatServer, startServer, stopServer } from "./chat-server-process.js";

const cleanups: Array<() => void> = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function fileStore(): string {
  const directory = mkdtempSync(join(tmpdir(), "skein-example-branches-"));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return `file://${directory}/store`;
}

/** A browser's chat of `user` against one server: the AI SDK's own chat, with the chat as that server loads it. */
async function openChat(server: ChatServer, user: string, id: string): Promise<ExampleChat> {
  const response = await fetch(`${server.url}/api/chat?user=${user}&id=${id}`);
  const messages: UIMessage[] = response.status === 404 ? [] : await json<UIMessage[]>(response);
  return new ExampleChat({ id, api: `${server.url}/api/chat`, user, messages });
}

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

const textOf = (message: UIMessage | undefined) =>
  message?.parts.map((part) => (part.type === "text" ? part.text : "")).join("");

/** The chat as a line per message: role, text and, for a message with versions, "i/n". */
function shown(messages: UIMessage[]): string[] {
  return messages.map((message) => {
    const versions = (message.metadata as { skein?: { index: number; count: number } } | undefined)?.skein;
    return `${message.role}: ${textOf(message)}${versions ? ` (${versions.index + 1}/${versions.count})` : ""}`;
  });
}

async function load(server: ChatServer, user: string, id: string): Promise<UIMessage[]> {
  return json(await fetch(`${server.url}/api/chat?user=${user}&id=${id}`));
}

async function switchTo(server: ChatServer, user: string, body: object): Promise<UIMessage[]> {
  return json(
    await fetch(`${server.url}/api/switch?user=${user}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

describe("AI SDK chat example: sidebar and branch picker across two processes", () => {
  it("lists in process B's sidebar, newest first with titles, the chats a user started in process A", async () => {
    const store = fileStore();
    const [first, second] = await Promise.all([startServer(store, cleanups), startServer(store, cleanups)]);

    const porto = await openChat(first, "u-7", "porto");
    await porto.run((chat) => chat.sendMessage({ text: "Plan a weekend in Porto" }));
    const lisbon = await openChat(first, "u-7", "lisbon");
    await lisbon.run((chat) => chat.sendMessage({ text: "And one in Lisbon" }));
    const other = await openChat(first, "u-8", "theirs");
    await other.run((chat) => chat.sendMessage({ text: "Someone else's chat" }));

    type Sidebar = { chats: Array<{ id: string; title: string; owner: string; messageCount: number }> };
    const sidebar = async () => json<Sidebar>(await fetch(`${second.url}/api/chats?user=u-7`));
    expect((await sidebar()).chats).toMatchObject([
      { id: "lisbon", title: "And one in Lisbon", owner: "u-7", messageCount: 2 },
      { id: "porto", title: "Plan a weekend in Porto", owner: "u-7", messageCount: 2 },
    ]);

    // A new message in the older chat, through A, moves it to the top of B's sidebar.
    await porto.run((chat) => chat.sendMessage({ text: "Add a day" }));
    expect((await sidebar()).chats.map((chat) => chat.id)).toEqual(["porto", "lisbon"]);
    const page = await (await fetch(`${second.url}/?user=u-7`)).text();
    expect(page.indexOf("Plan a weekend in Porto")).toBeGreaterThan(0);
    expect(page.indexOf("Plan a weekend in Porto")).toBeLessThan(page.indexOf("And one in Lisbon"));
    expect(page).not.toContain("Someone else");
    // Another user's chat is not theirs to read, nor to write to.
    expect((await fetch(`${second.url}/api/chat?user=u-7&id=theirs`)).status).toBe(404);
    const intrusion = await fetch(`${second.url}/api/chat?user=u-7`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "theirs",
        message: { id: "x", role: "user", parts: [{ type: "text", text: "hi" }] },
      }),
    });
    expect(intrusion.status).toBe(404);
    const theirs = await json<Sidebar>(await fetch(`${first.url}/api/chats?user=u-8`));
    expect(theirs.chats).toMatchObject([{ id: "theirs", title: "Someone else's chat", messageCount: 2 }]);

    expect(await stopServer(first)).toBe(0);
    expect(await stopServer(second)).toBe(0);
  });

  it("walks back and forth in process B an edit and a regeneration made through process A", async () => {
    const store = fileStore();
    const [first, second] = await Promise.all([startServer(store, cleanups), startServer(store, cleanups)]);

    const chat = await openChat(first, "u-7", "table");
    await chat.run((running) => running.sendMessage({ text: "A table for two?" }));
    const question = chat.messages[0] as UIMessage;
    const firstAnswer = chat.messages[1] as UIMessage;
    // The AI SDK's edit: the question keeps its id, what followed is dropped, and a new answer streams.
    await chat.run((running) => running.sendMessage({ text: "A table for three?", messageId: question.id }));
    // The AI SDK's regenerate: the last answer is dropped and streamed again.
    await chat.run((running) => running.regenerate());
    expect(shown(chat.messages)).toEqual([
      "user: A table for three?",
      'assistant: Reply 3 to "A table for three?".',
    ]);

    // Process B reads the chat the client holds, each replaced message a version beside the one shown.
    const loaded = await load(second, "u-7", "table");
    expect(loaded.map((message) => message.id)).toEqual(chat.messages.map((message) => message.id));
    expect(shown(loaded)).toEqual([
      "user: A table for three? (2/2)",
      'assistant: Reply 3 to "A table for three?". (2/2)',
    ]);

    // B's picker walks back to the regenerated answer's first version, and to the question's first version.
    const answerBack = await switchTo(second, "u-7", { id: "table", messageId: loaded[1]?.id, to: 0 });
    expect(shown(answerBack)).toEqual([
      "user: A table for three? (2/2)",
      'assistant: Reply 2 to "A table for three?". (1/2)',
    ]);
    const questionBack = await switchTo(second, "u-7", { id: "table", messageId: question.id, to: 0 });
    expect(shown(questionBack)).toEqual([
      "user: A table for two? (1/2)",
      'assistant: Reply 1 to "A table for two?".',
    ]);
    expect(questionBack[1]?.id).toBe(firstAnswer.id);
    // A sees B's switch; then B walks forward again, to the edit and its regenerated answer.
    expect(shown(await load(first, "u-7", "table"))).toEqual(shown(questionBack));
    const forward = await switchTo(second, "u-7", { id: "table", messageId: question.id, to: 1 });
    expect(shown(forward)).toEqual([
      "user: A table for three? (2/2)",
      'assistant: Reply 2 to "A table for three?". (1/2)',
    ]);
    const answerForward = await switchTo(second, "u-7", { id: "table", messageId: forward[1]?.id, to: 1 });
    expect(shown(answerForward)).toEqual(shown(loaded));

    // A version that does not exist is refused with what to give instead, and changes nothing.
    const refused = await fetch(`${second.url}/api/switch?user=u-7`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "table", messageId: question.id, to: 5 }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("an index from 0 to 1");
    expect(shown(await load(second, "u-7", "table"))).toEqual(shown(loaded));

    expect(await stopServer(first)).toBe(0);
    expect(await stopServer(second)).toBe(0);
  });

  it("edits, regenerates and switches from the page's forms, which show the picker and page the sidebar", async () => {
    const store = fileStore();
    const server = await startServer(store, cleanups);
    const post = async (path: string, form: Record<string, string>) => {
      const response = await fetch(`${server.url}${path}?user=u-7`, {
        method: "POST",
        body: new URLSearchParams(form),
        redirect: "manual",
      });
      expect(response.status, await response.clone().text()).toBe(303);
      return response.headers.get("location") as string;
    };

    const location = await post("/send", { text: "Soup or salad?" });
    const chatId = new URL(location, server.url).searchParams.get("chat") as string;
    const [question, answer] = await load(server, "u-7", chatId);
    await post("/edit", { chat: chatId, message: question?.id as string, text: "Soup or stew?" });
    await post("/regenerate", {
      chat: chatId,
      message: (await load(server, "u-7", chatId))[1]?.id as string,
    });
    expect(shown(await load(server, "u-7", chatId))).toEqual([
      "user: Soup or stew? (2/2)",
      'assistant: Reply 3 to "Soup or stew?". (2/2)',
    ]);

    const page = await (await fetch(`${server.url}${location}`)).text();
    expect(page).toContain("<span>2 / 2</span>");
    expect(page).toContain('<a href="/?user=u-7&amp;chat=');
    expect(page).toContain("Soup or salad?");
    await post("/switch", { chat: chatId, message: question?.id as string, to: "0" });
    const back = await load(server, "u-7", chatId);
    expect(shown(back)).toEqual(["user: Soup or salad? (1/2)", 'assistant: Reply 1 to "Soup or salad?".']);
    expect(back[1]?.id).toBe(answer?.id);
    const switchedPage = await (await fetch(`${server.url}${location}`)).text();
    expect(switchedPage).toContain("<span>1 / 2</span>");

    // The sidebar pages: 20 chats a page, then a link to the older ones, from where the page ended.
    for (let chat = 2; chat <= 21; chat++) await post("/send", { text: `Chat ${chat}` });
    const newest = await (await fetch(`${server.url}/?user=u-7`)).text();
    expect(newest.match(/<li/g)).toHaveLength(20);
    expect(newest).toContain("Chat 21");
    expect(newest).not.toContain("Soup or");
    const older = /href="(\/\?user=u-7&amp;from=[^"]+)">Older chats/.exec(newest)?.[1] as string;
    expect(older).toBeDefined();
    const oldest = await (await fetch(`${server.url}${older.replaceAll("&amp;", "&")}`)).text();
    expect(oldest.match(/<li/g)).toHaveLength(1);
    expect(oldest).toContain("Soup or salad?");
    expect(oldest).not.toContain("Older chats");
    expect(await stopServer(server)).toBe(0);
  });
});
