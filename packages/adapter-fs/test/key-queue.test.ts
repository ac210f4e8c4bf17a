import { describe, expect, it } from "vitest";
import { runInTurn } from "../src/locks/key-queue.js";

class TurnTimeoutError extends Error {}

/** A task that runs until `let go` is called. */
function held() {
  let letGo!: () => void;
  const done = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  return { task: () => done, letGo };
}

// A wait without a bound shows as a test that never ends: each test is given a few seconds.
const BOUNDED = 5_000;

describe("runInTurn", () => {
  it(
    "gives up waiting for a turn after timeoutMs, with the caller's error",
    async () => {
      const first = held();
      const running = runInTurn("queue-a", first.task);
      const waited = runInTurn("queue-a", async () => "ran", {
        timeoutMs: 20,
        timedOut: (waitedMs) => new TurnTimeoutError(`waited ${waitedMs} ms`),
      });
      await expect(waited).rejects.toBeInstanceOf(TurnTimeoutError);
      first.letGo();
      await running;
    },
    BOUNDED,
  );

  it(
    "keeps the tasks queued after a caller that gave up waiting for the ones before it",
    async () => {
      const first = held();
      const order: string[] = [];
      const running = runInTurn("queue-b", async () => {
        await first.task();
        order.push("first done");
      });
      const gaveUp = runInTurn("queue-b", async () => order.push("gave up"), {
        timeoutMs: 20,
        timedOut: () => new TurnTimeoutError("timed out"),
      });
      const third = runInTurn("queue-b", async () => order.push("third"));
      await expect(gaveUp).rejects.toBeInstanceOf(TurnTimeoutError);
      // The one before the third is gone; the first still runs, so the third must not start.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(order).toEqual([]);
      first.letGo();
      await Promise.all([running, third]);
      expect(order).toEqual(["first done", "third"]);
    },
    BOUNDED,
  );

  it(
    "keeps a caller that comes after the last one gave up waiting for the task still running",
    async () => {
      const first = held();
      const order: string[] = [];
      const running = runInTurn("queue-c", async () => {
        await first.task();
        order.push("first done");
      });
      const gaveUp = runInTurn("queue-c", async () => order.push("gave up"), {
        timeoutMs: 20,
        timedOut: () => new TurnTimeoutError("timed out"),
      });
      await expect(gaveUp).rejects.toBeInstanceOf(TurnTimeoutError);
      const later = runInTurn("queue-c", async () => order.push("later"));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(order).toEqual([]);
      first.letGo();
      await Promise.all([running, later]);
      expect(order).toEqual(["first done", "later"]);
    },
    BOUNDED,
  );
});
