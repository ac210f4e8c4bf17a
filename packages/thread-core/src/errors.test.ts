import { describe, expect, it, vi } from "vitest";
import * as errors from "./errors.js";
import {
  ConflictError,
  SkeinError,
  StoreUnavailableError,
  ThreadNotFoundError,
  UnsupportedOperationError,
  UnsupportedRunConfigError,
} from "./errors.js";
import * as serviceErrors from "./service-error.js";
import { ServiceCredentialError, ServiceError } from "./service-error.js";

/**
 * A second copy of the error modules, as a second installed version of thread-core gives: the same source
 * evaluated again in a fresh module registry, so its classes are other objects and `instanceof` fails across.
 */
async function secondCopy(): Promise<{ core: typeof errors; service: typeof serviceErrors }> {
  vi.resetModules();
  const core = await import("./errors.js");
  const service = await import("./service-error.js");
  return { core, service };
}

describe("error identity", () => {
  it("counts subclasses: X.isInstance is true for X and everything that extends it, and nothing else", () => {
    const refused = new UnsupportedRunConfigError("openai.responses", ["seed"], "no seed here");
    expect(UnsupportedRunConfigError.isInstance(refused)).toBe(true);
    expect(UnsupportedOperationError.isInstance(refused)).toBe(true);
    expect(SkeinError.isInstance(refused)).toBe(true);
    expect(ThreadNotFoundError.isInstance(refused)).toBe(false);
    const unsupported = new UnsupportedOperationError("memory", "fork");
    expect(UnsupportedRunConfigError.isInstance(unsupported)).toBe(false);
    expect(SkeinError.isInstance(new Error("plain"))).toBe(false);
    expect(ThreadNotFoundError.isInstance({ name: "ThreadNotFoundError" })).toBe(false);
  });

  it("works across two installed copies, where instanceof does not", async () => {
    const { core, service } = await secondCopy();
    expect(core.ThreadNotFoundError).not.toBe(ThreadNotFoundError);
    const fromCopy = new core.UnsupportedRunConfigError("a2a", ["seed"], "no seed");
    expect(fromCopy instanceof UnsupportedOperationError).toBe(false);
    expect(UnsupportedOperationError.isInstance(fromCopy)).toBe(true);
    expect(UnsupportedRunConfigError.isInstance(fromCopy)).toBe(true);
    expect(SkeinError.isInstance(fromCopy)).toBe(true);
    expect(ThreadNotFoundError.isInstance(fromCopy)).toBe(false);
    const throttled = new service.ServiceCredentialError("no", {
      operation: "responses.create",
      status: 401,
    });
    expect(ServiceError.isInstance(throttled)).toBe(true);
    expect(ServiceCredentialError.isInstance(throttled)).toBe(true);
    expect(core.SkeinError.isInstance(new ServiceError("x", { operation: "o" }))).toBe(true);
  });

  it("takes identity and name from the explicit marker, never from the class name a minifier changes", () => {
    // What a minifier makes of two packages' classes: both renamed to `a`.
    const a = class extends ThreadNotFoundError {
      static override readonly marker: string = "skein.one.MessageMappingError";
    };
    const b = class extends ThreadNotFoundError {
      static override readonly marker: string = "skein.two.MessageMappingError";
    };
    Object.defineProperty(b, "name", { value: "a" });
    const first = new a("t-1");
    expect(first.name).toBe("MessageMappingError");
    expect(a.isInstance(first)).toBe(true);
    expect(b.isInstance(first)).toBe(false);
    expect(ThreadNotFoundError.isInstance(first)).toBe(true);
  });

  it("counts a class's other families (alsoMarkers) without it extending them", () => {
    class AdapterNotFoundError extends ThreadNotFoundError {
      static override readonly marker: string = "skein.test.AdapterNotFoundError";
      static override readonly alsoMarkers = [ServiceError.marker];
    }
    const error = new AdapterNotFoundError("t-1");
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(ThreadNotFoundError.isInstance(error)).toBe(true);
    expect(ServiceCredentialError.isInstance(error)).toBe(false);
    expect(ConflictError.isInstance(error)).toBe(false);
  });

  it("falls back to instanceof for a subclass declared without a marker of its own", () => {
    class Unmarked extends ConflictError {}
    const error = new Unmarked("differs");
    expect(error.name).toBe("Unmarked");
    expect(Unmarked.isInstance(error)).toBe(true);
    expect(ConflictError.isInstance(error)).toBe(true);
    // Without a marker of its own, a sibling is not mistaken for it (it would inherit ConflictError's).
    expect(Unmarked.isInstance(new ConflictError("other"))).toBe(false);
  });

  it("gives every class of thread-core an explicit marker of its own, unique, whose last segment is its name", () => {
    const classes = [...Object.values(errors), ...Object.values(serviceErrors)].filter(
      (value): value is typeof SkeinError =>
        typeof value === "function" && (value === SkeinError || value.prototype instanceof SkeinError),
    );
    expect(classes.length).toBeGreaterThan(25);
    const markers = new Set<string>();
    for (const type of classes) {
      expect(Object.hasOwn(type, "marker"), type.name).toBe(true);
      expect(type.marker).toBe(`skein.thread-core.${type.name}`);
      expect(markers.has(type.marker)).toBe(false);
      markers.add(type.marker);
    }
    expect(new StoreUnavailableError("down").name).toBe("StoreUnavailableError");
  });
});

describe("ServiceError", () => {
  it("is retryable for 408, 429 and 5xx answers, not for other answers", () => {
    const retryable = (status: number | undefined) =>
      new ServiceError("failed", { operation: "items.list", status }).retryable;
    expect([408, 429, 500, 503].map(retryable)).toEqual([true, true, true, true]);
    expect([400, 401, 403, 404, 409, 422].map(retryable)).toEqual([false, false, false, false, false, false]);
  });

  it("without a status, is retryable only when its code says the service broke or throttled", () => {
    // A stream's `error` event comes after a 200: the SDK gives it without a status.
    const retryable = (code: string | undefined) =>
      new ServiceError("failed", { operation: "responses.create", code }).retryable;
    expect(["server_error", "rate_limit_exceeded"].map(retryable)).toEqual([true, true]);
    expect(["context_length_exceeded", "invalid_prompt", undefined].map(retryable)).toEqual([
      false,
      false,
      false,
    ]);
    expect(serviceErrors.isRetryableStatus(undefined)).toBe(false);
  });

  it("reads the request id and the wait from the answer's headers", () => {
    const now = Date.parse("2026-11-23T04:00:00Z");
    const read = (entries: Record<string, string>) =>
      serviceErrors.readServiceHeaders(new Headers(entries), now);
    expect(read({ "x-request-id": "req_1", "retry-after": "2" })).toEqual({
      requestId: "req_1",
      retryAfterMs: 2000,
    });
    expect(read({ "apim-request-id": "apim-1", "retry-after-ms": "150", "retry-after": "9" })).toEqual({
      requestId: "apim-1",
      retryAfterMs: 150,
    });
    expect(read({ "retry-after": "Mon, 23 Nov 2026 04:00:05 GMT" }).retryAfterMs).toBe(5000);
    expect(read({ "retry-after": "soon" })).toEqual({ requestId: undefined, retryAfterMs: undefined });
  });

  it("reads Retry-After strictly: whole seconds or an IMF-fixdate, anything else is no wait", () => {
    const now = Date.parse("2026-11-23T04:00:00Z");
    const wait = (entries: Record<string, string>) =>
      serviceErrors.readServiceHeaders(new Headers(entries), now).retryAfterMs;
    for (const text of ["-5", "soon 1", "0x10", "1e10", "100abc", "1.5", "+3", "Monday 23 Nov 2026"]) {
      expect(wait({ "retry-after": text }), text).toBeUndefined();
    }
    // Other date forms RFC 9110 only asks recipients to read are refused, not guessed at.
    expect(wait({ "retry-after": "Monday, 23-Nov-26 04:00:05 GMT" })).toBeUndefined();
    expect(wait({ "retry-after": "2026-11-23T04:00:05Z" })).toBeUndefined();
    expect(wait({ "retry-after": " 7 " })).toBe(7000);
    expect(wait({ "retry-after": "Mon, 23 Nov 2026 03:59:00 GMT" })).toBe(0);
    for (const text of ["1e308", "-1", "0x10", "100abc", "Infinity", ""]) {
      expect(wait({ "retry-after-ms": text }), text).toBeUndefined();
    }
    expect(wait({ "retry-after-ms": "1e3", "retry-after": "4" })).toBe(4000);
    expect(wait({ "retry-after-ms": "12.5" })).toBe(12.5);
  });

  it("clamps a wait to the longest timer Node can set (2^31-1 ms)", () => {
    const now = Date.parse("2026-11-23T04:00:00Z");
    const wait = (entries: Record<string, string>) =>
      serviceErrors.readServiceHeaders(new Headers(entries), now).retryAfterMs;
    expect(wait({ "retry-after": "99999999999" })).toBe(2 ** 31 - 1);
    expect(wait({ "retry-after-ms": "99999999999999999999" })).toBe(2 ** 31 - 1);
    expect(wait({ "retry-after": "Fri, 01 Jan 2100 00:00:00 GMT" })).toBe(2 ** 31 - 1);
  });

  it("scrubs key-shaped text from its message", () => {
    const error = new ServiceError("refused key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789", {
      operation: "responses.create",
      status: 401,
    });
    expect(error.message).not.toContain("abcdefghijklmnop");
  });
});
