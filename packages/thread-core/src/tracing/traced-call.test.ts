import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { withContextProviders } from "../context-provider.js";
import { createRegistry } from "../create-registry.js";
import { InvalidMessageError, InvalidThreadStateError } from "../errors.js";
import { LocalStore } from "../local/local-store.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { ThreadRunner } from "../runner.js";
import { openStore } from "../store/open-store.js";
import { defineThreadType, ThreadStateSchema } from "../thread-type.js";
import { SPAN_ATTRIBUTES } from "./span-attributes.js";

let exporter: InMemorySpanExporter;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});

afterEach(() => {
  trace.disable();
  context.disable();
});

function spans(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

function exported(): string {
  return JSON.stringify(
    exporter
      .getFinishedSpans()
      .map(({ name, attributes, events, status }) => ({ name, attributes, events, status })),
  );
}

function failingWith(failure: unknown): ThreadRunner {
  return {
    specificationVersion: "v1",
    supports: () => true,
    run: async () => {
      throw failure;
    },
  };
}

describe("a traced call's failure", () => {
  it("reaches the caller unchanged, whatever was thrown", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    const bare = Object.create(null) as object;
    await expect(withContextProviders(failingWith(bare), []).run(thread)).rejects.toBe(bare);
    const tricky = new Error("hidden");
    Object.defineProperty(tricky, "message", {
      get() {
        throw new TypeError("the message getter failed");
      },
    });
    await expect(withContextProviders(failingWith(tricky), []).run(thread)).rejects.toBe(tricky);
    const [first, second] = spans("skein.runner.run");
    expect(first?.status.code).toBe(SpanStatusCode.ERROR);
    expect(first?.attributes["error.type"]).toBe("object");
    expect(second?.status.code).toBe(SpanStatusCode.ERROR);
    expect(second?.attributes["error.type"]).toBe("Error");
    await store.close();
  });

  it("a URL's query password never reaches a span's status or exception event", async () => {
    const url = "postgres://app@127.0.0.1:1/app?password=hunter2hunter2";
    const store = new LocalStore({ driver: new MemoryLogDriver(), registry: createRegistry(), url });
    const thread = await store.create();
    const refused = new Error(`connect ECONNREFUSED 127.0.0.1:1 at ${url} (is the server up?)`);
    await expect(withContextProviders(failingWith(refused), []).run(thread)).rejects.toBe(refused);
    const [run] = spans("skein.runner.run");
    expect(run?.status.message).toBe(
      "connect ECONNREFUSED 127.0.0.1:1 at postgres://app@127.0.0.1:1/app?password=*** (is the server up?)",
    );
    expect(exported()).not.toContain("hunter2");
  });

  it("a failed run inside another run on the same thread is an ERROR span of its own", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    let attempts = 0;
    const flaky: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      run: async (target) => {
        attempts++;
        if (attempts === 1) throw new Error("the service is busy");
        return target.append({ role: "assistant", text: "answer" });
      },
    };
    const retrying: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      run: async (target) => {
        try {
          return await withContextProviders(flaky, []).run(target);
        } catch {
          return withContextProviders(flaky, []).run(target);
        }
      },
    };
    await withContextProviders(retrying, []).run(thread);
    const runs = spans("skein.runner.run");
    expect(runs.map((span) => span.status.code)).toEqual([
      SpanStatusCode.ERROR,
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
    ]);
    const outer = runs[2];
    expect(runs[0]?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
    await store.close();
  });

  it("a validation error's key path stays out of the span", async () => {
    const store = await openStore("memory:");
    const created = await store
      .create({ metadata: { "patient-ssn-078-05-1120": () => "not JSON" } })
      .catch((error: unknown) => error);
    expect(InvalidThreadStateError.isInstance(created)).toBe(true);
    expect((created as Error).message).toContain("078-05-1120");
    const thread = await store.create();
    const appended = await thread
      .append({ role: "user", text: "hi", metadata: { "patient-ssn-078-05-1120": () => "not JSON" } })
      .catch((error: unknown) => error);
    expect(InvalidMessageError.isInstance(appended)).toBe(true);
    expect((appended as Error).message).toContain("078-05-1120");
    const [create] = spans("skein.store.create");
    const [append] = spans("skein.thread.append");
    expect(create?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: expect.stringMatching(/^Invalid thread state/),
    });
    expect(create?.attributes["error.type"]).toBe("InvalidThreadStateError");
    expect(append?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: expect.stringMatching(/^Invalid message/),
    });
    expect(exported()).not.toContain("078-05-1120");
    await store.close();
  });
});

describe("span attributes", () => {
  it("a state's own `type` field never names the thread's type", async () => {
    const registry = createRegistry();
    registry.register(
      defineThreadType({ type: "acme.note", schema: ThreadStateSchema.extend({ type: z.string() }) }),
    );
    const store = await openStore("memory:", { registry });
    await store.save({
      $type: "acme.note",
      $v: 1,
      id: "note-1",
      createdAt: new Date().toISOString(),
      type: "customer says: my card 4111-1111",
    });
    const [save] = spans("skein.store.save");
    expect(save?.attributes[SPAN_ATTRIBUTES.threadType]).toBe("acme.note");
    expect(exported()).not.toContain("4111");
    await store.close();
  });
});
