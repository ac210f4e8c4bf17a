import { createRegistry } from "../../create-registry.js";
import { LocalStore } from "../../local/local-store.js";
import { MemoryLogDriver } from "../../memory/memory-log-driver.js";
import { expect } from "../expect.js";
import { conformanceCase, type SuiteContext } from "../suite-context.js";

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
 * `@opentelemetry/sdk-trace-base` must be installed (the conformance suite does not depend on them). A
 * provider the process registered already is set aside for the case and put back after it.
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
    return "@opentelemetry/api and @opentelemetry/sdk-trace-base are not installed: add both as devDependencies to run it";
  }
  const exporter = new sdk.InMemorySpanExporter();
  const provider = new sdk.BasicTracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor(exporter)] });
  let previous: import("@opentelemetry/api").TracerProvider | undefined;
  if (!api.trace.setGlobalTracerProvider(provider)) {
    const proxy = api.trace.getTracerProvider() as import("@opentelemetry/api").ProxyTracerProvider;
    previous = typeof proxy.getDelegate === "function" ? proxy.getDelegate() : proxy;
    api.trace.disable();
    if (!api.trace.setGlobalTracerProvider(provider)) {
      return "another tracer provider is registered and could not be set aside";
    }
  }
  return {
    exporter,
    stop: () => {
      api.trace.disable();
      if (previous !== undefined) api.trace.setGlobalTracerProvider(previous);
    },
  };
}

/** A URL's password (`user:password@`) or a credential-named query parameter's value, left unmasked. */
const UNMASKED_PASSWORD =
  /\/\/[^/@"]*:(?!\*\*\*@)[^/@"]+@|[?&;](?:(?:ssl)?pass(?:word|wd)?|pwd|token|secret|key)=(?!\*\*\*)[^&;#"]/i;

/** thread-core's README, "Tracing": every store's operations are spans that name the store and hold no text. */
export function tracingCases(context: SuiteContext): void {
  const name = "operations are OpenTelemetry spans naming the store, never holding a message's text";
  conformanceCase(context, name, async (test) => {
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
      // The store's URL as `store.url` shows it (its passwords masked), without its query.
      expect(append?.attributes["skein.store.url"]).toBe(context.store.url.replace(/[?#][\s\S]*$/, ""));
      expect(exported).not.toMatch(UNMASKED_PASSWORD);
    } finally {
      tracing.stop();
    }
  });

  // The stores under test are given no password, so this case gives one: a URL of the same scheme, with a
  // password in its user info and in its query, on a store of thread-core's (every store of `defineLogStore`
  // puts its URL on its spans the same way).
  const withPassword = "a password in the store's URL never reaches a span";
  conformanceCase(context, withPassword, async (test) => {
    const tracing = await startTracing();
    if (typeof tracing === "string") {
      test.skip(tracing);
      return;
    }
    try {
      const password = `pw-${crypto.randomUUID()}`;
      const scheme = context.store.url.slice(0, context.store.url.indexOf(":"));
      const url = `${scheme}://app:${password}@db.internal:1/app?password=${password}&sslmode=require`;
      const store = new LocalStore({ driver: new MemoryLogDriver(), registry: createRegistry(), url });
      const thread = await store.create();
      await thread.append({ role: "user", text: "hi" });
      await store.get("missing").catch(() => undefined);
      await store.close();
      await store.get(thread.id).catch(() => undefined);
      const spans = tracing.exporter.getFinishedSpans().filter((span) => span.name.startsWith("skein."));
      expect(spans.length).toBeGreaterThan(2);
      const exported = JSON.stringify(
        spans.map(({ name, attributes, events, status }) => ({ name, attributes, events, status })),
      );
      expect(exported).toContain(`${scheme}://app:***@db.internal:1/app`);
      expect(exported).not.toContain(password.slice(3));
    } finally {
      tracing.stop();
    }
  });
}
