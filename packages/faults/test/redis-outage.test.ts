import { openStore, StoreUnavailableError, type Thread, type ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, printed, type RunningChild, startChild, until } from "./support/child-processes.js";
import { type RedisServer, startRedisServer } from "./support/redis-servers.js";
import { redisStoreUrl, uniquePrefix } from "./support/test-redis.js";

const WRITERS = 3;
const APPENDS = 300;
/** Between two appends of one writer, so that the writers are still writing when Redis goes away. */
const PAUSE_MS = "4";
/** Each call to Redis is bounded by this (the store URL's `timeout`). */
const COMMAND_TIMEOUT_MS = 800;
// No upper bound on how long an error or the recovery takes: a loaded machine may be slow. A call that no
// timeout ended would not fail at all: it would wait for the server and then succeed (or, in this process,
// where the server returns only after the calls, outlast the test's timeout). The typed errors are the proof.

interface WriterReport {
  acks: Array<{ id: string; at: number }>;
  replayed: string[];
  errors: Array<{ name: string; retryable: boolean; tookMs: number; at: number; prefixed: boolean }>;
}

function report(writer: RunningChild): WriterReport {
  const result: WriterReport = { acks: [], replayed: [], errors: [] };
  for (const line of writer.output.lines()) {
    const [kind, ...fields] = line.split(" ");
    if (kind === "ack") result.acks.push({ id: fields[0] as string, at: Number(fields[1]) });
    if (kind === "replayed") result.replayed.push(fields[0] as string);
    if (kind === "error") {
      const [name, retryable, tookMs, at, prefixed] = fields as [string, string, string, string, string];
      result.errors.push({
        name,
        retryable: retryable === "true",
        tookMs: Number(tookMs),
        at: Number(at),
        prefixed: prefixed === "true",
      });
    }
  }
  return result;
}

/** How long a call took to fail with StoreUnavailableError; fails the test on anything else. */
async function failsUnavailable(call: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  const error = await call().then(
    () => new Error("the call succeeded while Redis was away"),
    (thrown: unknown) => thrown,
  );
  expect(StoreUnavailableError.isInstance(error), String(error)).toBe(true);
  expect((error as StoreUnavailableError).retryable).toBe(true);
  expect((error as Error).message).toMatch(/^\[adapter-redis\] /);
  return Date.now() - started;
}

/**
 * Runs WRITERS writer processes on a fresh thread, calls `outage` once each has landed 50 appends (it
 * returns when Redis is back, with that moment), and checks what every outage must leave: all messages
 * once, in each writer's order, one revision per message, typed errors, and appends again once Redis is back.
 */
async function writeThrough(
  server: RedisServer,
  outage: (thread: Thread, store: ThreadStore) => Promise<number>,
): Promise<WriterReport[]> {
  const url = redisStoreUrl(server.url, uniquePrefix("outage"), { timeout: String(COMMAND_TIMEOUT_MS) });
  const store = await openStore(url);
  const thread = await store.create({ id: "through-the-outage" });
  const writers = Array.from({ length: WRITERS }, (_, writer) =>
    startChild("retrying-writer.ts", [url, thread.id, `w${writer}`, String(APPENDS), PAUSE_MS]),
  );
  await Promise.all(writers.map((writer) => printed(writer, "ready")));
  await until(
    () => writers.every((writer) => report(writer).acks.length >= 50),
    "50 appends from every writer",
  );
  const back = await outage(thread, store);
  const codes = await Promise.all(writers.map((writer) => exited(writer.process)));
  expect(codes, writers.map((writer) => writer.output.stderr()).join("\n")).toEqual(Array(WRITERS).fill(0));

  const reports = writers.map(report);
  const ids = (await thread.messages()).map((message) => message.id);
  expect(ids).toHaveLength(WRITERS * APPENDS);
  expect(new Set(ids).size).toBe(WRITERS * APPENDS);
  await thread.refresh();
  // Retries that found their message already there changed nothing: one revision per message.
  expect(thread.revision).toBe(WRITERS * APPENDS);
  for (const [index, writerReport] of reports.entries()) {
    expect(ids.filter((id) => id.startsWith(`w${index}-`))).toEqual(writerReport.acks.map((ack) => ack.id));
    // The outage was felt, as typed, retryable errors (a call that waited for the server would have succeeded).
    expect(writerReport.errors.length).toBeGreaterThan(0);
    for (const error of writerReport.errors) {
      // Every writer's failure, not only this process's reads, names the package it came from.
      expect(error).toMatchObject({ name: "StoreUnavailableError", retryable: true, prefixed: true });
    }
    const firstAfter = writerReport.acks.find((ack) => ack.at >= back);
    expect(firstAfter, "the writer landed appends after Redis came back").toBeDefined();
  }
  await store.close();
  return reports;
}

function summary(reports: WriterReport[], back: string): string {
  const errors = reports.flatMap((writerReport) => writerReport.errors);
  const slowest = Math.max(...errors.map((error) => error.tookMs));
  const replayed = reports.reduce((sum, writerReport) => sum + writerReport.replayed.length, 0);
  return `${errors.length} StoreUnavailableErrors (slowest ${slowest} ms), ${replayed} retries found their message already landed, ${back}`;
}

describe("when Redis goes away during a run", () => {
  // This file's own server, never the shared one: it is killed, restarted and frozen here.
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer({ durable: true });
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it("a crash and restart mid-run: typed errors at once, recovery after, no append lost or doubled", async () => {
    let back = 0;
    let downMs = 0;
    const reports = await writeThrough(server, async (thread, store) => {
      const stopped = Date.now();
      // A crash, not a clean shutdown: the append-only file (fsync always) is all that survives.
      await server.stop("SIGKILL");
      // Readers in this process get the same typed errors while it is down (it comes back only after them).
      await failsUnavailable(() => thread.messages());
      await failsUnavailable(() => store.get(thread.id));
      await failsUnavailable(() => store.list());
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await server.restart();
      back = Date.now();
      downMs = back - stopped;
      return back;
    });
    console.info(`restart: down ${downMs} ms; ${summary(reports, "every writer finished")}`);
  });

  it("a Redis that stops answering (SIGSTOP): calls fail after the timeout, and retries after SIGCONT never duplicate", async () => {
    let back = 0;
    const reports = await writeThrough(server, async (thread) => {
      server.signal("SIGSTOP");
      const frozen = Date.now();
      try {
        const tookMs = await failsUnavailable(() => thread.messages());
        // The connection is open and silent, so only the timeout can end the call.
        expect(tookMs).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 50);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 3000 - (Date.now() - frozen))));
      } finally {
        server.signal("SIGCONT");
      }
      back = Date.now();
      return back;
    });
    // Appends that timed out were still queued on the connection and ran once Redis woke: their retries
    // found them there and were no-ops.
    const timedOut = reports.flatMap((writerReport) => writerReport.errors);
    expect(timedOut.every((error) => error.tookMs >= COMMAND_TIMEOUT_MS - 50)).toBe(true);
    expect(reports.reduce((sum, writerReport) => sum + writerReport.replayed.length, 0)).toBeGreaterThan(0);
    console.info(`SIGSTOP for 3 s: ${summary(reports, `recovered after SIGCONT`)}`);
  });
});
