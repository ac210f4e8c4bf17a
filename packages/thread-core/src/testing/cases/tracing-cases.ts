import { expect, it } from "vitest";
import type { SuiteContext } from "../suite-context.js";

interface FinishedSpan {
  name: string;
  attributes: Record<string, unknown>;
  events: unknown[];
  status: unknown;
}

interface TracingSdk {
  exporter: { getFinishedSpans(): FinishedSpan[] };
  stop(): void;
}

/**
 * Registers an in-memory exporter as the global tracer provider, or says why it cannot: the API and
 * `@opentelemetry/sdk-trace-base` must be installed (the conformance suite does not depend on them), and no
 * other provider may be registered in the process already.
 */
async function startTracing(): Promise<TracingSdk | string> {
  // Named through a variable so that bundling the suite leaves the SDK to the importer's install.
  const sdkName = "@opentelemetry/sdk-trace-base";
  let api: typeof import("@opentelemetry/api");
  let sdk: typeof import("@opentelemetry/sdk-trace-base");
  try {
    api = await import("@opentelemetry/api");
    sdk = (await import(sdkName)) as typeof import("@opentelemetry/sdk-trace-base");
  } catch {
    return "@opentelemetry/api and @opentelemetry/sdk-trace-base are not installed";
  }
  const exporter = new sdk.InMemorySpanExporter();
  const provider = new sdk.BasicTracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor(exporter)] });
  if (!api.trace.setGlobalTracerProvider(provider)) return "another tracer provider is registered";
  return { exporter, stop: () => api.trace.disable() };
}

/** thread-core's README, "Tracing": every store's operations are spans that name the store and hold no text. */
export function tracingCases(context: SuiteContext): void {
  const name = "operations are OpenTelemetry spans naming the store, never holding a message's text";
  const reason = context.options.skip?.[name];
  if (reason !== undefined) {
    it.skip(`${name} (skipped: ${reason})`);
    return;
  }
  it(name, async (test) => {
    const tracing = await startTracing();
    if (typeof tracing === "string") {
      test.skip(tracing);
      return;
    }
    try {
      const marker = `marker-${crypto.randomUUID()}`;
      const thread = await context.store.create({ metadata: { note: marker } });
      await thread.append([
        { role: "user", text: `${marker} asks` },
        { role: "assistant", text: `${marker} answers` },
      ]);
      await thread.messages({ last: 2 });
      const fork = await thread.fork();
      await context.store.get(thread.id);
      await context.store.export(thread.id);
      await context.store.delete(fork.id);

      const spans = tracing.exporter.getFinishedSpans().filter((span) => span.name.startsWith("skein."));
      const scheme = context.store.url.slice(0, context.store.url.indexOf(":"));
      const append = spans.find((span) => span.name === "skein.thread.append");
      expect(append?.attributes).toMatchObject({
        "skein.thread.id": thread.id,
        "skein.thread.type": context.store.nativeType,
        "skein.store.scheme": scheme,
        "skein.messages.count": 2,
      });
      expect(spans.map((span) => span.name)).toEqual(
        expect.arrayContaining([
          "skein.store.create",
          "skein.thread.messages",
          "skein.thread.fork",
          "skein.store.get",
          "skein.store.export",
          "skein.store.delete",
        ]),
      );
      for (const span of spans) expect(span.attributes["skein.store.scheme"], span.name).toBe(scheme);
      const exported = JSON.stringify(
        spans.map(({ name, attributes, events, status }) => ({ name, attributes, events, status })),
      );
      expect(exported).not.toContain(marker);
      expect(exported).not.toMatch(/\/\/[^/@"]*:(?!\*\*\*@)[^/@"]+@/); // a URL's password
    } finally {
      tracing.stop();
    }
  });
}
