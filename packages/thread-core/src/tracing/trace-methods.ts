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

/**
 * Set on a traced method: the method it stands for. Registered globally, so that two copies of
 * thread-core in one process recognise each other's wrappers and a class they share is wrapped once.
 */
export const UNTRACED_METHOD = Symbol.for("skein.untracedMethod");

type Method = ((...args: unknown[]) => unknown) & { [UNTRACED_METHOD]?: Method };

/**
 * Methods replaced while the `@opentelemetry/api` lookup had not answered, so that they can be put back if
 * it finds nothing. Emptied once it answers: nothing is recorded after, so memory stays flat however many
 * classes are wrapped.
 */
const pending: Array<{ target: object; key: string; original: Method }> = [];

/**
 * Traces the methods of a class: each is replaced on `prototype` by one that opens a span around the call
 * when an application has registered an OpenTelemetry tracer provider, and calls the method straight
 * through otherwise. The first call looks `@opentelemetry/api` up (once per process) without waiting for
 * it: calls made before it answers run untraced. When it is not installed, every method is put back as it
 * was, so nothing stays wrapped. Only the prototype's own data properties holding functions are replaced
 * (getters are neither run nor replaced), and a method already wrapped, by any copy of thread-core, is
 * left as it is.
 * @example traceMethods(LocalStore.prototype, { get: { name: "skein.store.get", start: (store, [id]) => ({}) } });
 */
export function traceMethods(prototype: object, spans: Readonly<Record<string, MethodSpan>>): void {
  const api = tracingApi();
  if (api === null) return;
  // Started as soon as something is traced (when thread-core's stores load), so it has answered by the
  // time most calls are made.
  if (api === undefined) lookUp();
  for (const [key, span] of Object.entries(spans)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
    if (descriptor === undefined || !("value" in descriptor) || !descriptor.configurable) continue;
    const original = descriptor.value as Method;
    if (typeof original !== "function" || original[UNTRACED_METHOD]) continue;
    const traced = tracedMethod(key, span, original);
    Object.defineProperty(prototype, key, { ...descriptor, value: traced });
    if (tracingApi() === undefined) pending.push({ target: prototype, key, original });
  }
}

function tracedMethod(key: string, span: MethodSpan, original: Method): Method {
  const traced = function (this: unknown, ...args: unknown[]): unknown {
    const api = tracingApi();
    if (api === undefined) {
      // Never wait for the lookup: the call runs now, as it would untraced.
      lookUp();
      return original.apply(this, args);
    }
    const tracer = api === null ? undefined : activeTracer(api);
    if (tracer === undefined || api === null || reachedThroughOverride(this, key, traced)) {
      return original.apply(this, args);
    }
    return callInSpan(
      api,
      tracer,
      span.name,
      () => span.start(this, args),
      () => original.apply(this, args),
      span.end && ((result) => span.end?.(result, this)),
    );
  } as Method;
  Object.defineProperty(traced, "name", { value: original.name });
  Object.defineProperty(traced, "length", { value: original.length });
  Object.defineProperty(traced, UNTRACED_METHOD, { value: original });
  return traced;
}

/**
 * Whether this wrapper is not the method `self` dispatches `key` to, while that method is a traced one:
 * the call came through `super.key(…)` (or `Base.prototype.key.call(self)`) from an override whose own
 * wrapper has made the span, so a second span would only repeat it. Decided from the object alone, so it
 * holds without a context manager and whenever the override calls `super`.
 */
function reachedThroughOverride(self: unknown, key: string, traced: Method): boolean {
  if ((typeof self !== "object" && typeof self !== "function") || self === null) return false;
  try {
    for (let owner: object | null = self; owner !== null; owner = Object.getPrototypeOf(owner)) {
      const descriptor = Object.getOwnPropertyDescriptor(owner, key);
      if (descriptor === undefined) continue;
      const resolved = descriptor.value as Method | undefined;
      return resolved !== traced && typeof resolved === "function" && resolved[UNTRACED_METHOD] !== undefined;
    }
  } catch {
    // A proxy whose traps throw: traced as any call.
  }
  return false;
}

let lookingUp = false;

/** Starts the lookup once; when it answers, puts the methods back if the API is absent, and forgets them. */
function lookUp(): void {
  if (lookingUp) return;
  lookingUp = true;
  void loadTracingApi().then(() => {
    const found = tracingApi() !== null;
    for (const { target, key, original } of pending.splice(0)) {
      if (found) continue;
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      if (descriptor && "value" in descriptor && descriptor.value?.[UNTRACED_METHOD] === original) {
        Object.defineProperty(target, key, { ...descriptor, value: original });
      }
    }
  });
}
