import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadChat } from "@skein/ai-sdk";
import { type Message, openStore } from "@skein/thread-core";
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { startServer } from "./chat-server-process.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const question: UIMessage = {
  id: "u1",
  role: "user",
  parts: [{ type: "text", text: "Tell me a long story" }],
};

/** The AI SDK's transport as `useChat` builds it for this route: only the newest message is sent. */
function transportOf(base: string): DefaultChatTransport<UIMessage> {
  return new DefaultChatTransport<UIMessage>({
    api: `${base}/api/chat`,
    prepareSendMessagesRequest: ({ id, messages }) => ({ body: { id, message: messages.at(-1) } }),
  });
}

/** The message the AI SDK's own client code builds from a UI message stream (the last one, if it broke off). */
async function assembled(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  try {
    for await (const message of readUIMessageStream({ stream })) last = message;
  } catch {
    // The server went away mid-stream: what arrived is the answer so far.
  }
  return last;
}

function textOf(message: UIMessage | Message | undefined): string {
  if (!message) return "";
  if ("parts" in message)
    return message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  return message.contents.map((content) => (content.type === "text" ? content.text : "")).join("");
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function tempStore(): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), "skein-resume-"));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return `file://${directory}/store`;
}

describe("AI SDK chat example: a reply another tab joins and a crash keeps", () => {
  it("a second tab joins, through another server process, a reply that process A streams, and gets all of it", async () => {
    const url = await tempStore();
    const a = await startServer(url, cleanups, ["--slow", "5"]);
    const b = await startServer(url, cleanups, ["--slow", "5"]);
    const store = await openStore(url);
    cleanups.push(() => void store.close());

    const asking = transportOf(a.url);
    const asked = assembled(
      await asking.sendMessages({
        chatId: "story",
        messages: [question],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    await until(async () => {
      const [last] = await (await store.get("story")).messages({ last: 1 });
      return (
        (last as { status?: string } | undefined)?.status === "streaming" && textOf(last).includes("word10 ")
      );
    });
    const joining = await transportOf(b.url).reconnectToStream({ chatId: "story" });
    if (!joining) throw new Error("process B answered 204 while the reply streamed");
    const [original, joined] = await Promise.all([asked, assembled(joining)]);

    expect(textOf(original)).toMatch(/^Story 1: word1 .* word200\.$/);
    expect(joined).toEqual(original);
    await until(async () => (await loadChat(await store.get("story"))).length === 2);
    expect(await loadChat(await store.get("story"))).toEqual([question, original]);
    expect(await transportOf(b.url).reconnectToStream({ chatId: "story" })).toBeNull();
  });

  it("process A SIGKILLed mid-reply: the reply keeps every flushed delta and ends interrupted; a tab that resumed on B gets it and ends", async () => {
    const url = await tempStore();
    const a = await startServer(url, cleanups, ["--slow", "10", "--lease", "1000"]);
    const b = await startServer(url, cleanups, ["--slow", "10", "--lease", "1000"]);
    const store = await openStore(url);
    cleanups.push(() => void store.close());

    const asked = assembled(
      await transportOf(a.url).sendMessages({
        chatId: "crash",
        messages: [question],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    let seen: Message | undefined;
    await until(async () => {
      [seen] = await (await store.get("crash")).messages({ last: 1 });
      return (
        (seen as { status?: string } | undefined)?.status === "streaming" && textOf(seen).includes("word20 ")
      );
    });
    const resumed = await transportOf(b.url).reconnectToStream({ chatId: "crash" });
    if (!resumed) throw new Error("process B answered 204 while the reply streamed");
    const joined = assembled(resumed);
    // What the store held just before the kill: every delta of it must survive.
    [seen] = await (await store.get("crash")).messages({ last: 1 });
    a.process.kill("SIGKILL");
    await asked;

    const kept = await joined;
    const chat = await loadChat(await store.get("crash"));
    expect(chat.map((message) => message.role)).toEqual(["user", "assistant"]);
    const reply = chat[1] as UIMessage;
    expect(reply.metadata).toEqual({ skein: { status: "interrupted" } });
    expect(textOf(reply).startsWith(textOf(seen))).toBe(true);
    // A prefix of the whole story: the reply was cut, and nothing in it is out of order.
    const story = `Story 1: ${Array.from({ length: 200 }, (_, index) => `word${index + 1}`).join(" ")}.`;
    expect(story.startsWith(textOf(reply))).toBe(true);
    expect(textOf(reply).length).toBeLessThan(story.length);
    // The tab that resumed on B got what was kept, then the stream ended.
    expect(kept?.id).toBe(reply.id);
    expect(textOf(kept)).toBe(textOf(reply));
    // Nothing streams any more.
    expect(await transportOf(b.url).reconnectToStream({ chatId: "crash" })).toBeNull();
  });
});
