import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { ChunkDeltas } from "../src/chunk-deltas.js";
import { ContentChunks } from "../src/content-chunks.js";

/** The message the AI SDK's own client code builds from these chunks. */
async function assembled(chunks: UIMessageChunk[]): Promise<UIMessage | undefined> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}

const original: UIMessageChunk[] = [
  { type: "start", messageId: "a1" },
  { type: "start-step" },
  { type: "source-url", sourceId: "s1", url: "https://example.com/a", title: "A" },
  { type: "text-start", id: "t1" },
  { type: "text-delta", id: "t1", delta: "See " },
  { type: "text-delta", id: "t1", delta: "the file." },
  { type: "text-end", id: "t1" },
  { type: "file", url: "data:text/plain;base64,aGk=", mediaType: "text/plain" },
  { type: "data-weather", id: "w1", data: { sky: "clear" } },
  { type: "data-progress", data: { step: 1 }, transient: true },
  { type: "tool-input-start", toolCallId: "c1", toolName: "lookup" },
  { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '{"q":' },
  { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '"x"}' },
  { type: "tool-input-available", toolCallId: "c1", toolName: "lookup", input: { q: "x" } },
  { type: "tool-output-error", toolCallId: "c1", errorText: "not found" },
  { type: "tool-input-available", toolCallId: "c2", toolName: "search", input: "plain", dynamic: true },
  { type: "tool-output-available", toolCallId: "c2", output: ["r1", "r2"], dynamic: true },
  { type: "finish-step" },
  { type: "start-step" },
  { type: "text-start", id: "t2" },
  { type: "text-delta", id: "t2", delta: "Done." },
  { type: "text-end", id: "t2" },
  { type: "finish-step" },
  { type: "finish" },
];

describe("the chunks resumeChat gives rebuild, in the AI SDK's client, the message the original stream built", () => {
  it("from the deltas persistChat wrote: sources, files, data parts, tool calls with errors and dynamic tools, steps", async () => {
    const deltas = new ChunkDeltas();
    const written = original.flatMap((chunk) => deltas.deltas(chunk));
    const replay = new ContentChunks();
    const chunks: UIMessageChunk[] = [
      { type: "start", messageId: "a1" },
      ...written.flatMap((content) => replay.chunks(content)),
      ...replay.finish(),
      { type: "finish" },
    ];
    const expected = await assembled(original);
    expect(expected?.parts.map((part) => part.type)).toEqual([
      "step-start",
      "source-url",
      "text",
      "file",
      "data-weather",
      "tool-lookup",
      "dynamic-tool",
      "step-start",
      "text",
    ]);
    expect(await assembled(chunks)).toEqual(expected);
  });
});
