import { ProxyTracer, ProxyTracerProvider, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { withContextProviders } from "../context-provider.js";
import { openStore } from "../store/open-store.js";
import type { Thread } from "../thread.js";

afterEach(() => {
  vi.restoreAllMocks();
  trace.disable();
});

async function workOn(thread: Thread): Promise<void> {
  const runner = withContextProviders(
    {
      specificationVersion: "v1",
      supports: () => true,
      run: (target) => target.append({ role: "assistant", text: "answer" }),
    },
    [],
  );
  for (let round = 0; round < 20; round++) {
    await thread.append({ role: "user", text: `question ${round}` });
    await runner.run(thread);
    await thread.messages({ last: 2 });
  }
}

describe("@opentelemetry/api installed, no tracer provider registered", () => {
  it("starts no span and asks for no tracer per call; spans start once a provider is registered", async () => {
    trace.disable();
    // Every way the API makes a span object when no provider is registered goes through these.
    const started = [
      vi.spyOn(ProxyTracer.prototype, "startSpan"),
      vi.spyOn(ProxyTracer.prototype, "startActiveSpan"),
      vi.spyOn(ProxyTracerProvider.prototype, "getTracer"),
    ];
    const delegateTracer = vi.spyOn(ProxyTracerProvider.prototype, "getDelegateTracer");
    const store = await openStore("memory:");
    const thread = await store.create();
    await workOn(thread);
    expect((await thread.messages()).length).toBe(40);
    for (const spy of started) expect(spy).not.toHaveBeenCalled();
    // Asked once, when skein first saw this provider; not per call.
    expect(delegateTracer.mock.calls.length).toBeLessThanOrEqual(1);

    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    await workOn(thread);
    const names = exporter.getFinishedSpans().map((span) => span.name);
    expect(names.filter((name) => name === "skein.runner.run")).toHaveLength(20);
    expect(names.filter((name) => name === "skein.thread.append")).toHaveLength(40);
    await store.close();
  });
});
