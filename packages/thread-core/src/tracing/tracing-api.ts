/**
 * skein traces through `@opentelemetry/api` when it is installed: an optional peer dependency, imported
 * once, lazily, by the first traced call; a failed import is remembered, never retried. The parts of the
 * API skein uses are declared here, so thread-core's types never name a package users may not have.
 */

/** Attribute values skein sets: strings, numbers and booleans only. */
export type SpanAttributes = Record<string, string | number | boolean>;

export interface TracingSpan {
  setAttributes(attributes: SpanAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: { name: string; message: string }): unknown;
  end(): void;
}

/** The API's `Context`: immutable, each `setValue` gives a new one. */
export interface TracingContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): TracingContext;
}

export interface TracingTracer {
  startSpan(name: string, options: { attributes: SpanAttributes }, parent: TracingContext): TracingSpan;
}

interface TracingProvider {
  getTracer(name: string, version?: string): TracingTracer;
  /** On the API's `ProxyTracerProvider`: the provider the application registered, or the API's no-op one. */
  getDelegate?(): unknown;
  /** On `ProxyTracerProvider`: the registered provider's tracer, `undefined` when none is registered. */
  getDelegateTracer?(name: string, version?: string): TracingTracer | undefined;
}

export interface TracingApi {
  trace: {
    getTracerProvider(): TracingProvider;
    setSpan(context: TracingContext, span: TracingSpan): TracingContext;
    getSpan(context: TracingContext): TracingSpan | undefined;
  };
  context: {
    active(): TracingContext;
    with<Result>(context: TracingContext, run: () => Result): Result;
  };
  createContextKey(description: string): symbol;
  SpanStatusCode: { ERROR: number };
}

/** The name skein's tracer is registered under. */
export const TRACER_NAME = "@skein/thread-core";

/** `undefined`: not looked up yet; `null`: not installed (or not usable). */
let loaded: TracingApi | null | undefined;
let loading: Promise<TracingApi | null> | undefined;

/** The API when it has been looked up: the module, `null` when it is absent, `undefined` before the lookup. */
export function tracingApi(): TracingApi | null | undefined {
  return loaded;
}

/** Looks `@opentelemetry/api` up once per process; every later call answers from that lookup. */
export function loadTracingApi(): Promise<TracingApi | null> {
  loading ??= import("@opentelemetry/api").then(
    (module) => {
      const api = module as unknown as Partial<TracingApi>;
      // A module without every part skein calls (an API too old or of another shape) is taken as absent.
      const usable =
        typeof api.trace?.getTracerProvider === "function" &&
        typeof api.trace.setSpan === "function" &&
        typeof api.trace.getSpan === "function" &&
        typeof api.context?.active === "function" &&
        typeof api.context.with === "function" &&
        typeof api.createContextKey === "function" &&
        api.SpanStatusCode !== undefined;
      loaded = usable ? (api as TracingApi) : null;
      return loaded;
    },
    () => {
      loaded = null;
      return null;
    },
  );
  return loading;
}

let lastProvider: TracingProvider | undefined;
let lastDelegate: unknown;
let lastTracer: TracingTracer | undefined;

/**
 * skein's tracer when the application has registered a tracer provider, else `undefined`, so that no span
 * object is made per call while nothing would record it. Costs two property reads and a comparison per
 * call; the tracer is asked for again only when the registered provider changes.
 */
export function activeTracer(api: TracingApi): TracingTracer | undefined {
  const provider = api.trace.getTracerProvider();
  const delegate = typeof provider.getDelegate === "function" ? provider.getDelegate() : provider;
  if (provider !== lastProvider || delegate !== lastDelegate) {
    lastProvider = provider;
    lastDelegate = delegate;
    // A provider that is not the API's proxy (another major's, say) is taken as registered.
    lastTracer =
      typeof provider.getDelegateTracer === "function"
        ? provider.getDelegateTracer(TRACER_NAME)
        : provider.getTracer(TRACER_NAME);
  }
  return lastTracer;
}
