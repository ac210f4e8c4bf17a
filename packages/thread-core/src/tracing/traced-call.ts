import { InvalidMessageError, InvalidThreadStateError } from "../errors.js";
import { redactSecrets } from "../redact-secrets.js";
import type { SpanAttributes, TracingApi, TracingSpan, TracingTracer } from "./tracing-api.js";

/**
 * Runs `call` inside an active span named `name`: the span is the parent of every span started while the
 * call runs (a run's appends, a store's reads), and it ends when the call settles. A failure sets the
 * span's status to ERROR and records an `exception` event whose message is scrubbed of credentials
 * (`redactSecrets`); the failure itself reaches the caller unchanged, and as the call gave it: a call that
 * throws before returning throws here too, one that rejects gives a rejected promise. Tracing never
 * changes an outcome: a span or an exporter that throws is ignored.
 */
export function callInSpan<Result>(
  api: TracingApi,
  tracer: TracingTracer,
  name: string,
  attributes: () => SpanAttributes,
  call: () => Result,
  resultAttributes?: (result: Awaited<Result>) => SpanAttributes | undefined,
): Result {
  let span: TracingSpan;
  let active: ReturnType<TracingApi["context"]["active"]>;
  try {
    const parent = api.context.active();
    span = tracer.startSpan(name, { attributes: describe(attributes) ?? {} }, parent);
    active = api.trace.setSpan(parent, span);
  } catch {
    // A tracer that cannot start a span: the call goes on untraced.
    return call();
  }
  let result: Result;
  try {
    result = api.context.with(active, call);
  } catch (error) {
    settle(api, span, { error });
    throw error;
  }
  if (!isThenable(result)) {
    settle(api, span, { attributes: () => resultAttributes?.(result as Awaited<Result>) });
    return result;
  }
  return result.then(
    (value) => {
      settle(api, span, { attributes: () => resultAttributes?.(value as Awaited<Result>) });
      return value;
    },
    (error: unknown) => {
      settle(api, span, { error });
      throw error;
    },
  ) as Result;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** Ends the span with the result's attributes or the failure; whatever the span throws is ignored. */
function settle(
  api: TracingApi,
  span: TracingSpan,
  outcome: { error: unknown } | { attributes: () => SpanAttributes | undefined },
): void {
  try {
    if ("error" in outcome) recordFailure(api, span, outcome.error);
    else {
      const more = describe(outcome.attributes);
      if (more) span.setAttributes(more);
    }
  } catch {
    // Tracing never changes an outcome.
  }
  try {
    span.end();
  } catch {
    // As above.
  }
}

function recordFailure(api: TracingApi, span: TracingSpan, error: unknown): void {
  const { name, message } = describeFailure(error);
  // The stack is left out: it repeats the message, and the code's paths tell an operator nothing more.
  span.recordException({ name, message });
  span.setStatus({ code: api.SpanStatusCode.ERROR, message });
  span.setAttributes({ "error.type": name });
}

/**
 * The failure's type and message as a span may hold them: read without trusting the value (an object
 * without a prototype, a getter that throws), scrubbed of credentials, and for a validation error without
 * the key path, which names the caller's metadata keys.
 */
export function describeFailure(error: unknown): { name: string; message: string } {
  if (InvalidThreadStateError.isInstance(error)) {
    return { name: safeName(error), message: "Invalid thread state: a value does not match its schema" };
  }
  if (InvalidMessageError.isInstance(error)) {
    return { name: safeName(error), message: "Invalid message: a value does not match its schema" };
  }
  return { name: safeName(error), message: redactSecrets(safeMessage(error)) };
}

function safeName(error: unknown): string {
  try {
    if (error instanceof Error) {
      const name = error.name;
      if (typeof name === "string" && name !== "") return name;
      return "Error";
    }
    return error === null ? "null" : typeof error;
  } catch {
    return "Error";
  }
}

function safeMessage(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message = error.message;
      return typeof message === "string" ? message : "";
    }
    return typeof error === "object" && error !== null
      ? Object.prototype.toString.call(error)
      : String(error);
  } catch {
    return "";
  }
}

/** Attributes read from a call's arguments or result, or none: tracing never changes an outcome. */
export function describe(read: () => SpanAttributes | undefined): SpanAttributes | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
