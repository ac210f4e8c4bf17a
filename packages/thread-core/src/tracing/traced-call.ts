import { redactSecrets } from "../redact-secrets.js";
import type { SpanAttributes, TracingApi, TracingSpan, TracingTracer } from "./tracing-api.js";

/**
 * Runs `call` inside an active span named `name`: the span is the parent of every span started while the
 * call runs (a run's appends, a store's reads), and it ends when the call settles. A failure sets the
 * span's status to ERROR and records an `exception` event whose message is scrubbed of credentials
 * (`redactSecrets`); the failure itself is rethrown unchanged.
 */
export function callInSpan<Result>(
  api: TracingApi,
  tracer: TracingTracer,
  name: string,
  attributes: SpanAttributes,
  call: () => Promise<Result>,
  resultAttributes?: (result: Result) => SpanAttributes | undefined,
): Promise<Result> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
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
