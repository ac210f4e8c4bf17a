import { redactSecrets } from "../redact-secrets.js";
import type { SpanAttributes, TracingApi, TracingSpan, TracingTracer } from "./tracing-api.js";

/** The traced call a context is inside of: the object and the span name. */
interface TracedCall {
  self: unknown;
  name: string;
}

/** What a traced call's context holds: the call, and the span it made. */
interface ActiveCall extends TracedCall {
  span: TracingSpan;
}

const callKeys = new WeakMap<TracingApi, symbol>();

function callKey(api: TracingApi): symbol {
  let key = callKeys.get(api);
  if (key === undefined) {
    key = api.createContextKey("skein.tracedCall");
    callKeys.set(api, key);
  }
  return key;
}

/**
 * Runs `call` inside an active span named `name`: the span is the parent of every span started while the
 * call runs (a run's appends, a store's reads), and it ends when the call settles. A failure sets the
 * span's status to ERROR and records an `exception` event whose message is scrubbed of credentials
 * (`redactSecrets`); the failure itself is rethrown unchanged. A call made from inside the same operation
 * on the same object, with no span between (an overriding method calling `super`), makes no second span.
 */
export function callInSpan<Result>(
  api: TracingApi,
  tracer: TracingTracer,
  traced: TracedCall,
  attributes: () => SpanAttributes,
  call: () => Promise<Result>,
  resultAttributes?: (result: Result) => SpanAttributes | undefined,
): Promise<Result> {
  const parent = api.context.active();
  const key = callKey(api);
  const current = parent.getValue(key) as ActiveCall | undefined;
  // Straight from the same operation on the same object, with no span between: a `super` call.
  if (
    current !== undefined &&
    current.self === traced.self &&
    current.name === traced.name &&
    api.trace.getSpan(parent) === current.span
  ) {
    return call();
  }
  const span = tracer.startSpan(traced.name, { attributes: describe(attributes) ?? {} }, parent);
  const active = api.trace.setSpan(parent, span).setValue(key, { ...traced, span });
  return api.context.with(active, async () => {
    try {
      const result = await call();
      const more = describe(() => resultAttributes?.(result));
      if (more) span.setAttributes(more);
      return result;
    } catch (error) {
      recordFailure(api, span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

function recordFailure(api: TracingApi, span: TracingSpan, error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  // The stack is left out: it repeats the message, and the code's paths tell an operator nothing more.
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  span.recordException({ name, message });
  span.setStatus({ code: api.SpanStatusCode.ERROR, message });
  span.setAttributes({ "error.type": name });
}

/** Attributes read from a call's arguments or result, or none: tracing never changes an outcome. */
export function describe(read: () => SpanAttributes | undefined): SpanAttributes | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
