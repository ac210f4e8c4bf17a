import type { Message } from "@skein/thread-core";
import { MessageListSchema, normalizeMessage } from "@skein/thread-core/driver";
import { convertToModelMessages, type ModelMessage, validateUIMessages } from "ai";
import { describe, expect, it } from "vitest";
import { fromModelMessages, fromUIMessages, toModelMessages, toUIMessages } from "../src/index.js";
import { installedMajor, onAi6, onAi7 } from "./ai-major.js";
import { everyAi7ModelPart, everyAi7UIPart } from "./fixtures-ai7.js";

/** As a store gives messages back: JSON. */
function stored(messages: Message[]): Message[] {
  return JSON.parse(JSON.stringify(messages));
}

/** Every URL object in a value, by where it is, so a test can see they came back as URL objects, not strings. */
function urlsIn(value: unknown, path = ""): string[] {
  if (value instanceof URL) return [`${path}=${value.href}`];
  if (Array.isArray(value)) return value.flatMap((item, index) => urlsIn(item, `${path}/${index}`));
  if (typeof value === "object" && value !== null && !(value instanceof Uint8Array)) {
    return Object.entries(value).flatMap(([key, item]) => urlsIn(item, `${path}/${key}`));
  }
  return [];
}

describe(`AI SDK 7 UI parts (ai ${installedMajor} installed)`, () => {
  it.skipIf(onAi6)(
    "round-trip custom, reasoning-file, steering-message, citations, providerReference and every tool state (ai 6 has no custom part)",
    async () => {
      const messages = stored(fromUIMessages(everyAi7UIPart));
      expect(MessageListSchema.safeParse(messages).success).toBe(true);
      const back = toUIMessages(messages);
      expect(back).toEqual(everyAi7UIPart);
      await expect(validateUIMessages({ messages: back })).resolves.toBeDefined();
      const expected = await convertToModelMessages(everyAi7UIPart);
      expect(await convertToModelMessages(back)).toEqual(expected);
      expect(await toModelMessages(messages)).toEqual(expected);
    },
  );

  it.skipIf(onAi6)("keep 7's parts as ai-sdk.<type> contents (ai 6 has no custom part)", () => {
    const [, assistant] = fromUIMessages(everyAi7UIPart);
    expect(assistant?.contents.slice(1, 4)).toEqual([
      {
        type: "ai-sdk.reasoning-file",
        mediaType: "image/png",
        url: expect.any(String),
        providerMetadata: expect.any(Object),
      },
      {
        type: "ai-sdk.custom",
        kind: "openai.compaction",
        providerMetadata: { openai: { itemId: "item_7" } },
      },
      { type: "ai-sdk.custom", kind: "anthropic.container" },
    ]);
    expect(assistant?.contents[5]).toMatchObject({ type: "ai-sdk.steering-message", id: "steer-1" });
  });

  it("stored by an app on 7, read under the installed major as parts its validateUIMessages takes, and saved back unchanged", async () => {
    const contents = [
      { type: "ai-sdk.custom", kind: "openai.compaction" },
      { type: "ai-sdk.reasoning-file", mediaType: "image/png", url: "https://example.com/r.png" },
      { type: "ai-sdk.steering-message", id: "s", parts: [{ type: "text", text: "stop" }] },
    ];
    const [message] = stored(
      fromUIMessages([{ id: "a", role: "assistant", parts: [{ type: "text", text: "x" }] }]),
    );
    const written = normalizeMessage({ ...message, contents } as Message);
    const [uiMessage] = toUIMessages([written]);
    await expect(validateUIMessages({ messages: [uiMessage] })).resolves.toBeDefined();
    const expected =
      installedMajor === 7
        ? [
            { type: "custom", kind: "openai.compaction" },
            { type: "reasoning-file", mediaType: "image/png", url: "https://example.com/r.png" },
            { type: "steering-message", id: "s", parts: [{ type: "text", text: "stop" }] },
          ]
        : contents.map((content) => ({ type: "data-skein", data: content }));
    expect(uiMessage?.parts).toEqual(expected);
    expect(fromUIMessages([uiMessage as never])[0]?.contents).toEqual(contents);
  });
});

const png = Buffer.from("png").toString("base64");
const toolResult = (items: unknown[]): ModelMessage =>
  ({
    role: "tool",
    content: [
      { type: "tool-result", toolCallId: "c", toolName: "shot", output: { type: "content", value: items } },
    ],
  }) as ModelMessage;

describe(`AI SDK 7 model parts (ai ${installedMajor} installed)`, () => {
  it.skipIf(onAi6)(
    "round-trip custom, reasoning-file, every FileData shape and 7's tool output items, equal with URL objects (ai 6 has no custom part)",
    async () => {
      const messages = stored(fromModelMessages(everyAi7ModelPart));
      expect(MessageListSchema.safeParse(messages).success).toBe(true);
      const back = await toModelMessages(messages);
      expect(back).toEqual(everyAi7ModelPart);
      // toEqual does not look inside URL objects: compare where they are and what they hold.
      expect(urlsIn(back)).toEqual(urlsIn(everyAi7ModelPart));
      expect(urlsIn(back)).toHaveLength(5);
    },
  );

  it.skipIf(onAi6)(
    "read as UI messages 7's validateUIMessages and convertToModelMessages take (ai 6 has no custom part)",
    async () => {
      const uiMessages = toUIMessages(stored(fromModelMessages(everyAi7ModelPart)));
      await expect(validateUIMessages({ messages: uiMessages })).resolves.toBeDefined();
      await expect(convertToModelMessages(uiMessages)).resolves.toBeDefined();
      // Only UI fields: what fromModelMessages keeps for the model parts stays out of the UI file parts.
      expect(uiMessages[0]?.parts[1]).toEqual({
        type: "file",
        mediaType: "application/pdf",
        url: "https://cdn.example.com/r.pdf",
      });
      const parts = uiMessages[1]?.parts ?? [];
      // The model's request reason is the UI approval's requestReason, not the response's reason.
      expect(parts.find((part) => part.type === "tool-shot")).toMatchObject({
        state: "output-available",
        approval: { id: "a1", requestReason: "takes a screenshot", isAutomatic: true, approved: true },
      });
      expect(parts.find((part) => part.type === "tool-shot")).not.toHaveProperty("approval.reason");
      expect(parts.filter((part) => ["reasoning-file", "custom"].includes(part.type as string))).toEqual([
        { type: "reasoning-file", mediaType: "image/png", url: "https://example.com/sketch.png" },
        {
          type: "reasoning-file",
          mediaType: "image/png",
          url: `data:image/png;base64,${Buffer.from([7, 7]).toString("base64")}`,
        },
        {
          type: "reasoning-file",
          mediaType: "image/png",
          url: `data:image/png;base64,${Buffer.from("a tiny png").toString("base64")}`,
          providerMetadata: { openai: { id: "r1" } },
        },
        { type: "custom", kind: "openai.compaction", providerMetadata: { openai: { encrypted: "xyz" } } },
        { type: "custom", kind: "anthropic.container" },
      ]);
    },
  );

  it.skipIf(onAi7)("round-trip 6's media tool output item on ai 6 (ai 7 has no media item)", async () => {
    const messages = [toolResult([{ type: "media", data: png, mediaType: "image/png" }])];
    expect(await toModelMessages(stored(fromModelMessages(messages)))).toEqual(messages);
  });

  it.skipIf(onAi6)(
    "store file data by its tag: URLs as uri, bytes and text as data, references as file (ai 6 has no FileData)",
    () => {
      const [user] = fromModelMessages(everyAi7ModelPart);
      expect(user?.contents.map((content) => content.type)).toEqual([
        "uri",
        "uri",
        "data",
        "data",
        "data",
        "file",
        "file",
        "file",
      ]);
      expect(user?.contents[5]).toMatchObject({
        type: "file",
        fileId: "file-1",
        mediaType: "application/pdf",
      });
      expect(user?.contents[4]).toMatchObject({ data: Buffer.from("# Notes\nnaïve ✓").toString("base64") });
    },
  );

  it("read a tool output's 6.x media and 7.x file (base64 data) items as the installed major's own", async () => {
    // As the other major's app stored them: the same contents, whichever wrote them.
    const [written] = fromModelMessages([toolResult([{ type: "text", text: "t" }])]);
    const asStored = (items: unknown[]) =>
      normalizeMessage({
        ...written,
        contents: [{ ...(written?.contents[0] as object), result: items }],
      } as Message);
    const media = { type: "media", data: png, mediaType: "image/png" };
    const file = { type: "file", data: { type: "data", data: png }, mediaType: "image/png" };
    const own = installedMajor === 7 ? file : media;
    expect(await toModelMessages([asStored([media])])).toEqual([toolResult([own])]);
    expect(await toModelMessages([asStored([file])])).toEqual([toolResult([own])]);
  });
});
