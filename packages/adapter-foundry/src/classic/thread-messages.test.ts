import type { ThreadMessage } from "@azure/ai-agents";
import { type Message, UnsupportedOperationError } from "@skein/thread-core";
import { expect, test } from "vitest";
import { threadMessageToMessage, toClassicInput } from "./thread-messages.js";

const AT = "2026-01-02T03:04:05.000Z";
const skein = (role: Message["role"], contents: Message["contents"]): Message => ({
  id: "m",
  role,
  createdAt: AT,
  contents,
});

test("classic messages read with the service's id, time, text and images", () => {
  const message = {
    id: "msg_1",
    object: "thread.message",
    createdAt: new Date(AT),
    threadId: "thread_1",
    status: "completed",
    incompleteDetails: null,
    completedAt: null,
    incompleteAt: null,
    role: "assistant",
    content: [
      { type: "text", text: { value: "hello", annotations: [] } },
      { type: "image_file", imageFile: { fileId: "file_1" } },
      { type: "audio_clip" },
    ],
    assistantId: "asst_1",
    runId: "run_1",
    attachments: null,
    metadata: null,
  } as unknown as ThreadMessage;
  expect(threadMessageToMessage(message)).toEqual({
    id: "msg_1",
    role: "assistant",
    createdAt: AT,
    contents: [
      { type: "text", text: "hello" },
      { type: "file", fileId: "file_1", mediaType: "image/*" },
      { type: "audio_clip" },
    ],
  });
});

test("skein messages become messages.create input: plain text, or blocks with images", () => {
  expect(toClassicInput(skein("user", [{ type: "text", text: "hi" }]))).toEqual({
    role: "user",
    content: "hi",
  });
  expect(
    toClassicInput(
      skein("user", [
        { type: "text", text: "see" },
        { type: "uri", uri: "https://x.test/a.png", mediaType: "image/png" },
        { type: "data", mediaType: "image/png", data: "iVBO" },
      ]),
    ),
  ).toEqual({
    role: "user",
    content: [
      { type: "text", text: "see" },
      { type: "image_url", imageUrl: { url: "https://x.test/a.png" } },
      { type: "image_url", imageUrl: { url: "data:image/png;base64,iVBO" } },
    ],
  });
  expect(toClassicInput(skein("assistant", [{ type: "usage", inputTokens: 1 }]))).toBeUndefined();
});

test("what a classic thread cannot hold is refused", () => {
  expect(() => toClassicInput(skein("system", [{ type: "text", text: "x" }]))).toThrow(
    UnsupportedOperationError,
  );
  expect(() =>
    toClassicInput(
      skein("assistant", [{ type: "uri", uri: "https://x.test/a.png", mediaType: "image/png" }]),
    ),
  ).toThrow(/in assistant messages/);
});
