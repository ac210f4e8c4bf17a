import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadChat } from "@skein/ai-sdk";
import { openStore } from "@skein/thread-core";
import {
  convertToModelMessages,
  DefaultChatTransport,
  readUIMessageStream,
  stepCountIs,
  streamText,
  type UIMessage,
} from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedModel, tools } from "../ai-sdk-chat/chat-route.mjs";
import { startServer, stopServer } from "./chat-server-process.js";

const cleanups: Array<() => void> = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** What useChat does: send the chat (this route takes only its newest message) and read the streamed answer. */
async function send(api: string, chatId: string, messages: UIMessage[]): Promise<UIMessage[]> {
  const transport = new DefaultChatTransport<UIMessage>({
    api,
    prepareSendMessagesRequest: ({ id, messages: all }) => ({ body: { id, message: all.at(-1) } }),
  });
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const last = messages.at(-1);
  const continued = last?.role === "assistant" ? last : undefined;
  let answer: UIMessage | undefined;
  for await (const message of readUIMessageStream({
    stream,
    ...(continued ? { message: structuredClone(continued) } : {}),
  })) {
    answer = message;
  }
  if (!answer) throw new Error("no answer was streamed");
  return continued ? [...messages.slice(0, -1), answer] : [...messages, answer];
}

describe("AI SDK chat example", () => {
  it("asks for approval in one process and, approved, continues in another with the prompt the SDK builds", async () => {
    const directory = mkdtempSync(join(tmpdir(), "skein-example-"));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const url = `file://${directory}/store`;
    const prompts = join(directory, "prompts.jsonl");

    const first = await startServer(url, cleanups, ["--prompts", prompts]);
    const asked = await send(`${first.url}/api/chat`, "chat-1", [
      { id: "u1", role: "user", parts: [{ type: "text", text: "Delete /tmp/old.log" }] },
    ]);
    expect(await stopServer(first)).toBe(0);
    const request = asked[1]?.parts.find((part) => part.type === "tool-deleteFile");
    expect(request).toMatchObject({ state: "approval-requested", input: { path: "/tmp/old.log" } });
    // The answer's id is one of skein's sortable ids.
    expect(asked[1]?.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);

    // The user approves (what useChat's addToolApprovalResponse does); another process serves the next request.
    const approval = (request as { approval: { id: string } }).approval;
    const approved = structuredClone(asked);
    Object.assign(approved[1]?.parts.find((part) => part.type === "tool-deleteFile") ?? {}, {
      state: "approval-responded",
      approval: { id: approval.id, approved: true },
    });
    const second = await startServer(url, cleanups, ["--prompts", prompts]);
    const done = await send(`${second.url}/api/chat`, "chat-1", approved);
    const reloaded = (await (await fetch(`${second.url}/api/chat?id=chat-1`)).json()) as UIMessage[];
    expect(await stopServer(second)).toBe(0);

    expect(done[1]?.parts.at(-1)).toEqual({
      type: "text",
      text: 'Done: {"deleted":"/tmp/old.log"}.',
      state: "done",
    });
    expect(done[1]?.parts.find((part) => part.type === "tool-deleteFile")).toMatchObject({
      state: "output-available",
      output: { deleted: "/tmp/old.log" },
    });
    // The thread holds exactly what the client shows, and the asked-for version stays in its history.
    expect(reloaded).toEqual(done);
    const store = await openStore(url);
    const thread = await store.get("chat-1");
    expect(await loadChat(thread)).toEqual(done);
    expect((await thread.history()).map((event) => event.kind)).toEqual(["rollback"]);
    await store.close();

    // The second process, which had only the approval from the client, sent the model the prompt the SDK
    // builds itself from the whole chat the client holds.
    const sent = readFileSync(prompts, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(sent).toHaveLength(2);
    const expected: unknown[] = [];
    const result = streamText({
      model: scriptedModel({
        onPrompt: (prompt: unknown) => expected.push(JSON.parse(JSON.stringify(prompt))),
      }),
      messages: await convertToModelMessages(approved, { tools }),
      tools,
      stopWhen: stepCountIs(5),
    });
    await result.consumeStream();
    expect(sent[1]).toEqual(expected[0]);
  });
});
