import { afterEach, describe, expect, it, vi } from "vitest";
import { CallDeadlines, CallTimedOut } from "./call-deadlines.js";

/** A promise that never settles: a call to a server that never answers. */
const never = () => new Promise<never>(() => {});
const failure = (error: unknown) => error;

describe("CallDeadlines", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("bounds many pending calls with one timer, and fails each once its time is up", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    const deadlines = new CallDeadlines(50);
    const calls = Array.from({ length: 50 }, () => deadlines.bound(never(), failure));
    expect(timers).toHaveBeenCalledTimes(1);
    const outcomes = await Promise.allSettled(calls);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(CallTimedOut);
    }
  });

  it("settles as the call does when it answers in time, passing a failure through `failure`", async () => {
    const deadlines = new CallDeadlines(10_000);
    await expect(deadlines.bound(Promise.resolve(42), failure)).resolves.toBe(42);
    const refused = deadlines.bound(Promise.reject(new Error("refused")), (error) => ({ wrapped: error }));
    await expect(refused).rejects.toEqual({ wrapped: new Error("refused") });
  });

  it("gives every call its own full time: a later call outlives an earlier one's deadline", async () => {
    const deadlines = new CallDeadlines(200);
    const early = deadlines.bound(never(), failure);
    await new Promise((resolve) => setTimeout(resolve, 100));
    let lateSettled = false;
    const late = deadlines.bound(never(), failure).finally(() => {
      lateSettled = true;
    });
    late.catch(() => {});
    await expect(early).rejects.toBeInstanceOf(CallTimedOut);
    expect(lateSettled).toBe(false);
    await expect(late).rejects.toBeInstanceOf(CallTimedOut);
  });

  it("does not fail a call that answered, even when its timer was set for it", async () => {
    const deadlines = new CallDeadlines(50);
    let answer: (value: string) => void = () => {};
    const answered = deadlines.bound(new Promise<string>((resolve) => (answer = resolve)), failure);
    answer("ok");
    await expect(answered).resolves.toBe("ok");
    // The timer set for it fires later and finds nothing to fail; a new call still gets its full time.
    await new Promise((resolve) => setTimeout(resolve, 80));
    await expect(deadlines.bound(Promise.resolve("again"), failure)).resolves.toBe("again");
  });

  it("waits out a time longer than a timer can hold without waking again and again", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    // About 35 days: past the 2^31 - 1 ms a Node timer holds, which it would cut to 1 ms.
    const deadlines = new CallDeadlines(3_000_000_000);
    let settled = false;
    const call = deadlines.bound(never(), failure).finally(() => {
      settled = true;
    });
    call.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    // One timer for the call (and the one this test waited on): not one every millisecond.
    expect(timers.mock.calls.filter(([, delay]) => delay !== 50)).toHaveLength(1);
  });
});
