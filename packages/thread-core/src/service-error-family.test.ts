import { describe, expect, it, vi } from "vitest";
import { ConflictError, SkeinError, StoreUnavailableError, ThreadNotFoundError } from "./errors.js";
import { ServiceCredentialError, ServiceError } from "./service-error.js";
import * as family from "./service-error-family.js";
import {
  ServiceConflictError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceUnavailableError,
} from "./service-error-family.js";

const failure = { operation: "conversations.items.list", status: 404, requestId: "req_1" };

/** A second installed copy of thread-core: the same modules evaluated again, so `instanceof` fails across. */
async function secondCopy(): Promise<typeof family> {
  vi.resetModules();
  return import("./service-error-family.js");
}

describe("the service-error family", () => {
  it("carries the source, the failure's fields and the cause, and keeps the family applications catch", () => {
    const cause = new Error("HTTP 404");
    const gone = new ServiceNotFoundError("t-1", "no such conversation", failure, {
      source: "adapter-openai",
      cause,
    });
    expect(gone.message).toBe('[adapter-openai] Thread "t-1" was not found: no such conversation');
    expect(gone).toMatchObject({
      name: "ServiceNotFoundError",
      source: "adapter-openai",
      threadId: "t-1",
      detail: "no such conversation",
      operation: "conversations.items.list",
      status: 404,
      requestId: "req_1",
      retryable: false,
      cause,
    });
    expect(gone).toBeInstanceOf(ThreadNotFoundError);
    expect(ServiceError.isInstance(gone)).toBe(true);
    expect(ServiceConflictError.isInstance(gone)).toBe(false);

    const busy = new ServiceConflictError(
      "a response is running",
      { operation: "responses.create", status: 409 },
      {
        source: "adapter-foundry",
      },
    );
    expect(busy.message).toBe("[adapter-foundry] a response is running");
    expect(busy).toBeInstanceOf(ConflictError);
    // The other request ends, so a 409 is retryable unlike other 4xx answers; an adapter may still say no.
    expect(busy.retryable).toBe(true);
    expect(
      new ServiceConflictError("x", { operation: "o", retryable: false }, { source: "s" }).retryable,
    ).toBe(false);

    const down = new ServiceUnavailableError(
      "Agent is unavailable",
      { operation: "message/send", retryable: false },
      {
        source: "adapter-a2a",
      },
    );
    expect(down).toBeInstanceOf(StoreUnavailableError);
    expect(down.retryable).toBe(true);
    expect(down.message.startsWith("[adapter-a2a] ")).toBe(true);

    const throttled = new ServiceRateLimitError(
      "slow down",
      { operation: "responses.create", status: 429, retryAfterMs: 2000 },
      { source: "adapter-openai" },
    );
    expect(ServiceUnavailableError.isInstance(throttled)).toBe(true);
    expect(ServiceRateLimitError.isInstance(down)).toBe(false);
    expect(throttled).toMatchObject({ retryable: true, retryAfterMs: 2000, status: 429 });
  });

  it("scrubs a key the service quoted from what it says", () => {
    const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
    const errors = [
      new ServiceNotFoundError("t-1", `unknown key ${key}`, failure, { source: "adapter-openai" }),
      new ServiceConflictError(`busy for ${key}`, failure, { source: "adapter-openai" }),
      new ServiceUnavailableError(`proxy refused ${key}`, failure, { source: "adapter-openai" }),
    ];
    for (const error of errors)
      expect(JSON.stringify({ ...error, message: error.message })).not.toContain(key);
  });

  it("is known by isInstance across two installed copies of thread-core, where instanceof fails", async () => {
    const copy = await secondCopy();
    expect(copy.ServiceNotFoundError).not.toBe(ServiceNotFoundError);
    const gone = new copy.ServiceNotFoundError("t-1", "gone", failure, { source: "adapter-foundry" });
    expect(gone instanceof ServiceNotFoundError).toBe(false);
    expect(ServiceNotFoundError.isInstance(gone)).toBe(true);
    expect(ThreadNotFoundError.isInstance(gone)).toBe(true);
    expect(ServiceError.isInstance(gone)).toBe(true);
    const throttled = new copy.ServiceRateLimitError(
      "slow down",
      { operation: "o", status: 429 },
      { source: "a" },
    );
    expect(ServiceRateLimitError.isInstance(throttled)).toBe(true);
    expect(ServiceUnavailableError.isInstance(throttled)).toBe(true);
    expect(StoreUnavailableError.isInstance(throttled)).toBe(true);
    expect(ServiceConflictError.isInstance(throttled)).toBe(false);
    expect(ServiceCredentialError.isInstance(throttled)).toBe(false);
  });

  it("keeps an adapter's old class, as a thin subclass with its own marker, known by both names", async () => {
    // What an adapter keeps for its deprecated name: the family class, its old marker, its source.
    const declareOldName = (base: typeof ServiceNotFoundError) =>
      class OldNotFoundError extends base {
        static override readonly marker: string = "skein.adapter-old.OldNotFoundError";
      };
    const OldNotFoundError = declareOldName(ServiceNotFoundError);
    const copy = await secondCopy();
    const OldFromCopy = declareOldName(copy.ServiceNotFoundError);
    const error = new OldFromCopy("t-1", "gone", failure, { source: "adapter-old" });
    expect(error.name).toBe("OldNotFoundError");
    expect(OldNotFoundError.isInstance(error)).toBe(true);
    expect(ServiceNotFoundError.isInstance(error)).toBe(true);
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(
      OldNotFoundError.isInstance(new ServiceNotFoundError("t-1", "gone", failure, { source: "x" })),
    ).toBe(false);
  });

  it("gives every class an explicit thread-core marker of its own, whose last segment is its name", () => {
    const exported: unknown[] = Object.values(family);
    const classes = exported.filter(
      (value): value is typeof SkeinError =>
        typeof value === "function" && value.prototype instanceof SkeinError,
    );
    expect(classes.map((type) => type.name).sort()).toEqual([
      "ServiceConflictError",
      "ServiceNotFoundError",
      "ServiceRateLimitError",
      "ServiceUnavailableError",
    ]);
    for (const type of classes) {
      expect(Object.hasOwn(type, "marker"), type.name).toBe(true);
      expect(type.marker).toBe(`skein.thread-core.${type.name}`);
    }
  });
});
