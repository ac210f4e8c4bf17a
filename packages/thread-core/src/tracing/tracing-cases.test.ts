import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.js";
import type { ThreadStore } from "../store/store.js";
import { tracingCases } from "../testing/cases/tracing-cases.js";
import type { ConformanceOptions } from "../testing/conformance-options.js";
import type { SuiteContext } from "../testing/suite-context.js";

// An application that registered its own tracer provider before the conformance suite runs.
const applicationSpans = new InMemorySpanExporter();
const application = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(applicationSpans)] });

beforeAll(() => {
  trace.setGlobalTracerProvider(application);
});
afterAll(() => {
  trace.disable();
});

describe("the conformance tracing cases with another tracer provider registered", () => {
  const options: ConformanceOptions = {
    name: "memory",
    createStore: () => openStore("memory:"),
    describe,
    it,
  };
  // Each case makes its store through the options, as in runConformanceSuite.
  tracingCases({ store: undefined as unknown as ThreadStore, options } satisfies SuiteContext);

  it("ran rather than skipped, and put the application's provider back", ({ task }) => {
    const cases = (task.suite?.tasks ?? []).filter((sibling) => sibling !== task);
    expect(cases.map((sibling) => sibling.result?.state)).toEqual(["pass", "pass"]);
    // The cases' spans went to their own exporter, and the application's provider records again.
    expect(applicationSpans.getFinishedSpans()).toHaveLength(0);
    trace.getTracer("app").startSpan("after the cases").end();
    expect(applicationSpans.getFinishedSpans().map((span) => span.name)).toEqual(["after the cases"]);
  });
});
