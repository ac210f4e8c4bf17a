import { MockLanguageModelV3 } from "ai/test";

type StreamResult = Awaited<ReturnType<MockLanguageModelV3["doStream"]>>;
type LanguageModelV3StreamPart = StreamResult["stream"] extends ReadableStream<infer Part> ? Part : never;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** The SDK's mock model answering `text`; its `doStreamCalls` hold the prompts it was sent. */
export function answering(text: string): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: streamOf([
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t1" },
        { type: "text-delta", id: "t1", delta: text },
        { type: "text-end", id: "t1" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
      ]),
    }),
  });
}

/**
 * A mock model that streams one whole text part, starts a second and then waits until the call is aborted;
 * `started` resolves once the second part began.
 */
export function stalling(): { model: MockLanguageModelV3; started: Promise<void> } {
  let began: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    began = resolve;
  });
  const model = new MockLanguageModelV3({
    doStream: async ({ abortSignal }) => ({
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of [
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t1" },
            { type: "text-delta", id: "t1", delta: "The first part." },
            { type: "text-end", id: "t1" },
            { type: "text-start", id: "t2" },
            { type: "text-delta", id: "t2", delta: "The second, cut" },
          ] as LanguageModelV3StreamPart[]) {
            controller.enqueue(part);
          }
          began();
          abortSignal?.addEventListener("abort", () => controller.error(abortSignal.reason));
        },
      }),
    }),
  });
  return { model, started };
}

function streamOf(parts: LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/**
 * A mock model that calls `tool` with `input` until the prompt holds a tool result, then answers with that
 * result's value.
 */
export function callingThenAnswering(tool: string, input: unknown): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const result = prompt
        .flatMap((message) => (message.role === "tool" ? message.content : []))
        .find((part) => part.type === "tool-result");
      const output = result?.type === "tool-result" ? result.output : undefined;
      const parts: LanguageModelV3StreamPart[] = output
        ? [
            { type: "text-start", id: "t1" },
            {
              type: "text-delta",
              id: "t1",
              delta: `Done: ${JSON.stringify("value" in output ? output.value : output)}`,
            },
            { type: "text-end", id: "t1" },
          ]
        : [{ type: "tool-call", toolCallId: "call-1", toolName: tool, input: JSON.stringify(input) }];
      const finishReason = { unified: output ? "stop" : "tool-calls", raw: undefined } as const;
      return {
        stream: streamOf([
          { type: "stream-start", warnings: [] },
          ...parts,
          { type: "finish", finishReason, usage },
        ]),
      };
    },
  });
}
