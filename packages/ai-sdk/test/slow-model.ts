import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";

type StreamResult = Awaited<ReturnType<MockLanguageModelV3["doStream"]>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer Part> ? Part : never;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/**
 * The SDK's mock model, slowed down: its first call reasons, says a few words, two text parts in a row and calls
 * the `weather` tool; its second (after the tool's result) answers in `words` text deltas, `delayMs` apart.
 */
export function slowModel({ words, delayMs }: { words: number; delayMs: number }): MockLanguageModelV3 {
  let calls = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      calls++;
      const chunks: StreamPart[] =
        calls === 1
          ? [
              { type: "stream-start", warnings: [] },
              { type: "reasoning-start", id: "r1" },
              { type: "reasoning-delta", id: "r1", delta: "The user wants " },
              { type: "reasoning-delta", id: "r1", delta: "the weather." },
              { type: "reasoning-end", id: "r1" },
              { type: "text-start", id: "t1", providerMetadata: { mock: { itemId: "t1" } } },
              { type: "text-delta", id: "t1", delta: "Let me " },
              { type: "text-delta", id: "t1", delta: "look." },
              { type: "text-end", id: "t1", providerMetadata: { mock: { itemId: "t1", done: true } } },
              { type: "text-start", id: "t2" },
              { type: "text-delta", id: "t2", delta: "One moment." },
              { type: "text-end", id: "t2" },
              { type: "tool-call", toolCallId: "call-1", toolName: "weather", input: '{"city":"Paris"}' },
              { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
            ]
          : [
              { type: "stream-start", warnings: [] },
              { type: "text-start", id: "t3" },
              ...Array.from({ length: words }, (_, index) => ({
                type: "text-delta" as const,
                id: "t3",
                delta: `word${index} `,
              })),
              { type: "text-end", id: "t3" },
              { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
            ];
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: delayMs }) };
    },
  });
}
