import { callInSpan } from "./traced-call.js";
import { activeTracer, loadTracingApi, type SpanAttributes, tracingApi } from "./tracing-api.js";

/** How one method is traced: its span's name, and its attributes from the call and from its result. */
export interface MethodSpan {
  name: string;
  /** Attributes known before the call: `self` is the object the method is called on. */
  start(self: unknown, args: readonly unknown[]): SpanAttributes;
  /** Attributes of the result (a returned thread's id, a count of messages). */
  end?(result: unknown, self: unknown): SpanAttributes | undefined;
}

/** Set on a traced method: the method it stands for. */
export const UNTRACED_METHOD = Symbol("skein.untracedMethod");

type Method = ((...args: unknown[]) => Promise<unknown>) & { [UNTRACED_METHOD]?: Method };

/** Every method replaced so far, so that they can be put back when the API turns out to be absent. */
const replaced: Array<{ target: object; key: string; original: Method }> = [];

/**
 * Traces the async methods of a class: each is replaced on `prototype` by one that opens a span around the
 * call when an application has registered an OpenTelemetry tracer provider, and calls the method straight
 * through otherwise. The first traced call in the process looks `@opentelemetry/api` up (once); when it is
 * not installed, every method is put back as it was, so nothing stays wrapped.
 * @example traceMethods(LocalStore.prototype, { get: { name: "skein.store.get", start: (store, [id]) => ({}) } });
 */
export function traceMethods(prototype: object, spans: Readonly<Record<string, MethodSpan>>): void {
  if (tracingApi() === null) return;
  for (const [key, span] of Object.entries(spans)) {
    const original = (prototype as Record<string, Method>)[key];
    if (typeof original !== "function" || original[UNTRACED_METHOD]) continue;
    const traced = function (this: unknown, ...args: unknown[]): Promise<unknown> {
      const api = tracingApi();
      if (api === undefined) {
        return loadTracingApi().then(() => {
          restoreWhenAbsent();
          return traced.apply(this, args);
        });
      }
      const tracer = api === null ? undefined : activeTracer(api);
      if (tracer === undefined) return original.apply(this, args);
      return callInSpan(
        api as NonNullable<typeof api>,
        tracer,
        { self: this, name: span.name },
        () => span.start(this, args),
        () => original.apply(this, args),
        span.end && ((result) => span.end?.(result, this)),
      );
    } as Method;
    Object.defineProperty(traced, "name", { value: original.name });
    Object.defineProperty(traced, UNTRACED_METHOD, { value: original });
    Object.defineProperty(prototype, key, {
      value: traced,
      writable: true,
      configurable: true,
      enumerable: false,
    });
    replaced.push({ target: prototype, key, original });
  }
}

function restoreWhenAbsent(): void {
  if (tracingApi() !== null) return;
  for (const { target, key, original } of replaced.splice(0)) {
    if ((target as Record<string, Method>)[key]?.[UNTRACED_METHOD] === original) {
      Object.defineProperty(target, key, {
        value: original,
        writable: true,
        configurable: true,
        enumerable: false,
      });
    }
  }
}
