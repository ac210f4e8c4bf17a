import type { Message } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fromA2aMessage, taskMessages, toA2aMessage } from "./message-mapping.js";

const userMessage: Message = {
  id: "m-1",
  role: "user",
  createdAt: "2026-11-21T22:39:36.000Z",
  authorName: "ada",
  contents: [{ type: "text", text: "hi" }],
  metadata: { tag: "x" },
  customField: { kept: true },
};

describe("messages", () => {
  it("sends a user message with what A2A lacks in its metadata, and reads it back exactly", () => {
    const wire = toA2aMessage(userMessage, { contextId: "c", taskId: "t" });
    expect(wire).toMatchObject({ messageId: "m-1", contextId: "c", taskId: "t", role: "ROLE_USER" });
    expect(fromA2aMessage(wire, { fallbackId: "unused" })).toEqual(userMessage);
  });

  it("reads a task as its history, its status message, then its artifacts, timing untimed messages", () => {
    const messages = taskMessages({
      id: "task-1",
      contextId: "c",
      status: {
        state: "TASK_STATE_COMPLETED",
        timestamp: "2026-11-21T23:00:00.000Z",
        message: { messageId: "done", role: "ROLE_AGENT", parts: [{ text: "done" }] },
      },
      history: [
        toA2aMessage(userMessage, { contextId: "c" }),
        { messageId: "a-1", role: "ROLE_AGENT", parts: [{ text: "working" }], metadata: { step: 1 } },
      ],
      artifacts: [{ artifactId: "report", name: "Report", parts: [{ text: "42" }] }],
    });
    expect(messages.map((message) => [message.id, message.role, message.createdAt])).toEqual([
      ["m-1", "user", "2026-11-21T22:39:36.000Z"],
      ["a-1", "assistant", "2026-11-21T22:39:36.000Z"],
      ["done", "assistant", "2026-11-21T22:39:36.000Z"],
      ["task-1:artifact:report", "assistant", "2026-11-21T23:00:00.000Z"],
    ]);
    expect(messages[1]?.metadata).toEqual({ a2a: { step: 1 } });
    expect(messages[3]?.metadata).toEqual({
      a2a: { taskId: "task-1", artifactId: "report", name: "Report" },
    });
  });

  it("gives ids to messages without one, and keeps parts it cannot map whole", () => {
    const [message] = taskMessages({
      id: "task-2",
      history: [{ role: "ROLE_AGENT", parts: [{ raw: "not base64!" }] }],
    });
    expect(message?.id).toBe("task-2:0");
    expect(message?.createdAt).toBe("1970-01-01T00:00:00.000Z");
    expect(message?.contents).toEqual([{ type: "a2a.part", part: { raw: "not base64!" } }]);
  });
});
