import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type Message, messageText, openStore, type ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createThreadService, type ThreadService } from "../src/index.js";
import { scriptedRunner } from "./fake-runners.js";

const redis = inject("redis");
const worker = fileURLToPath(new URL("./fixtures/service-worker.ts", import.meta.url));
const packageDirectory = fileURLToPath(new URL("..", import.meta.url));

interface Worker {
  child: ChildProcess;
  lines: AsyncIterator<string>;
  exited: Promise<number | null>;
}

function startWorker(options: Record<string, unknown>): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", worker, JSON.stringify(options)], {
    cwd: packageDirectory,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> })[
    Symbol.asyncIterator
  ]();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, lines, exited };
}

async function nextLine(running: Worker): Promise<Record<string, unknown>> {
  const line = await running.lines.next();
  if (line.done) throw new Error(`the worker ended early (exit ${await running.exited})`);
  return JSON.parse(line.value) as Record<string, unknown>;
}

describe("two processes on one Redis store", () => {
  let store: ThreadStore;
  let service: ThreadService;
  const prefix = `two-processes-${randomBytes(4).toString("hex")}-`;

  beforeAll(async () => {
    if ("unavailable" in redis) throw new Error(redis.unavailable);
    store = await openStore(redis.url);
    service = createThreadService({ store, runner: scriptedRunner(), leaseMs: 600 });
  });
  afterAll(async () => {
    await service?.close({ abort: true });
    await store?.close();
  });

  it("never process one thread in both at once, and process every message once", async () => {
    const threadIds: string[] = [];
    for (let index = 0; index < 6; index++) {
      threadIds.push((await service.createThread({ id: `${prefix}${index}` })).threadId);
    }
    const url = (redis as { url: string }).url;
    const workers = ["a", "b"].map((name) =>
      // A lease far longer than any stall a loaded machine causes: a worker starved past it would lose its
      // lease to the other, which this test would then report as an overlap.
      startWorker({ url, name, threadIds, messages: 15, leaseMs: 10_000, mode: "send" }),
    );
    for (const running of workers) {
      expect(await nextLine(running)).toEqual({ done: true, processed: 90, failures: [] });
      expect(await running.exited).toBe(0);
    }
    for (const threadId of threadIds) {
      const messages = await (await store.get(threadId)).messages();
      expect(messages).toHaveLength(60);
      const inputs = messages.filter((_, at) => at % 2 === 0).map(messageText);
      expect(new Set(inputs).size).toBe(30);
      const answers = messages.filter((_, at) => at % 2 === 1);
      answers.forEach((answer, at) => {
        // Each answer directly follows its own input: no run interleaved with another.
        expect(answer.metadata?.input).toBe(inputs[at]);
      });
      expectNoOverlap(answers);
      expect(new Set(answers.map((answer) => answer.metadata?.pid)).size).toBe(2);
    }
  });

  it("takes over the thread of a process that crashed while holding its lease", async () => {
    const { threadId } = await service.createThread({ id: `${prefix}crash` });
    const url = (redis as { url: string }).url;
    const crashing = startWorker({
      url,
      name: "crashing",
      threadIds: [threadId],
      messages: 1,
      // Long enough that its lease still shows as held when status() asks, however slow the machine.
      leaseMs: 6000,
      mode: "hang",
    });
    expect(await nextLine(crashing)).toEqual({ started: threadId });
    crashing.child.kill("SIGKILL");
    await crashing.exited;
    expect(await service.status(threadId)).toBe("running");
    const started = performance.now();
    const result = await service.send(threadId, "still there?");
    expect(performance.now() - started).toBeGreaterThanOrEqual(5950);
    expect(messageText(result.messages[0] as Message)).toBe("echo: still there?");
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual([
      "crashing-0",
      "still there?",
      "echo: still there?",
    ]);
  });
});

function expectNoOverlap(answers: Message[]): void {
  const runs = answers
    .map((answer) => ({ start: answer.metadata?.start as number, end: answer.metadata?.end as number }))
    .sort((left, right) => left.start - right.start);
  for (let at = 1; at < runs.length; at++) {
    expect(runs[at]?.start).toBeGreaterThanOrEqual(runs[at - 1]?.end as number);
  }
}
