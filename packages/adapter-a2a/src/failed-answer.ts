import { AsyncLocalStorage } from "node:async_hooks";

/** An HTTP answer that was not ok, as the fetch below the SDK saw it. */
export interface FailedAnswer {
  status: number;
  headers: Headers;
}

/*
 * The SDK turns an HTTP failure into an Error whose message holds the status but not the headers, which
 * carry the gateway's request id and Retry-After. A fetch wrapped by `a2aFetch` keeps the last answer
 * that was not ok for the agent call in progress (one slot per call, through AsyncLocalStorage, so
 * concurrent calls never see each other's answers); `agentError` reads it.
 */
const calls = new AsyncLocalStorage<{ failed?: FailedAnswer | undefined }>();

/** Runs one agent call with a slot of its own for the answer `a2aFetch` sees. */
export function recordingAnswers<Result>(call: () => Promise<Result>): Promise<Result> {
  return calls.run({}, call);
}

/** The answer that was not ok in the agent call in progress, if a fetch made by `a2aFetch` saw one. */
export function failedAnswer(): FailedAnswer | undefined {
  return calls.getStore()?.failed;
}

/**
 * A `fetch` for the SDK's transports and card resolver that lets skein read a failed answer's request id
 * and Retry-After (the SDK's own errors drop them). `a2aAdapter()` uses it by default; pass it yours when
 * you build the `ClientFactory` yourself.
 * @example new JsonRpcTransportFactory({ fetchImpl: a2aFetch(fetchWithKey) })
 */
export function a2aFetch(fetchImpl?: typeof fetch): typeof fetch {
  return async (input, init) => {
    const slot = calls.getStore();
    // A retry inside one call must not report the failure of the request before it.
    if (slot) slot.failed = undefined;
    const response = await (fetchImpl ?? globalThis.fetch)(input, init);
    if (slot && !response.ok) slot.failed = { status: response.status, headers: response.headers };
    return response;
  };
}
