import type { Message } from "../message.js";
import type { RunOptions, ThreadRunner } from "../runner.js";
import { assertSpecificationVersion } from "../specification-version.js";
import type { Thread } from "../thread.js";
import { SPAN_ATTRIBUTES, threadAttributes } from "./span-attributes.js";
import { callInSpan } from "./traced-call.js";
import { activeTracer, loadTracingApi, type SpanAttributes, tracingApi } from "./tracing-api.js";

/** Set on a runner `tracedRunner` made, so that a run through it is traced once, not twice. */
const TRACED_RUNNER = Symbol.for("skein.tracedRunner");

/**
 * `runner.run(thread, options)` inside a `skein.runner.run` span (the thread's id and type, the model asked
 * for, the count of messages the run appended) when an application has registered a tracer provider;
 * straight through otherwise. thread-core's own run paths (`runWithContextProviders`, which thread-service
 * and `withContextProviders` use) call runners through this.
 */
export function runTraced(runner: ThreadRunner, thread: Thread, options?: RunOptions): Promise<Message[]> {
  const api = tracingApi();
  if (api === undefined) {
    // Never wait for the lookup: this run goes untraced, the next ones are traced once it has answered.
    void loadTracingApi();
    return runner.run(thread, options);
  }
  // A runner of `tracedRunner` traces its own runs. Nothing else is taken for a repeat: a run inside a run
  // (a retry of the same runner on the same thread, another thread's run) is a span of its own.
  const tracer =
    api === null || (runner as { [TRACED_RUNNER]?: true })[TRACED_RUNNER] ? undefined : activeTracer(api);
  if (tracer === undefined || api === null) return runner.run(thread, options);
  return callInSpan(
    api,
    tracer,
    "skein.runner.run",
    () => {
      const attributes: SpanAttributes = threadAttributes(thread, {});
      const model = options?.config?.model;
      if (typeof model === "string") attributes[SPAN_ATTRIBUTES.runModel] = model;
      return attributes;
    },
    () => runner.run(thread, options),
    (messages) =>
      Array.isArray(messages) ? { [SPAN_ATTRIBUTES.messagesCount]: messages.length } : undefined,
  );
}

/**
 * The runner with each `run` inside a `skein.runner.run` span, for applications that call a runner
 * themselves (thread-service and `withContextProviders` trace their runs already; a runner made by this
 * is not traced twice there).
 * @example const runner = tracedRunner(openaiRunner({ client, model: "gpt-5" })); await runner.run(thread);
 */
export function tracedRunner(runner: ThreadRunner): ThreadRunner {
  assertSpecificationVersion("runner given to tracedRunner", runner.specificationVersion);
  return {
    specificationVersion: "v1",
    [TRACED_RUNNER]: true,
    supports: (thread) => runner.supports(thread),
    run: (thread, options) => runTraced(runner, thread, options),
  } as ThreadRunner;
}
