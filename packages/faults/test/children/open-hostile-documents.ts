// Feeds generated and mutated hostile documents into parseThreadState, a memory store's open and an fs
// store's open, and prints one JSON summary: how each call ended, the slowest calls, any error that is
// not a SkeinError, any pollution of the built-in prototypes, and any network request a call attempted.
// A call still unsettled after HANG_MS is a hang: the summary names it and the process exits with 3 at
// once (a runaway call cannot be stopped otherwise); the test starts it again after that document.
// Documents are numbered from 0; `from` skips the first ones, the same ones for the same seed.
// Usage: open-hostile-documents.ts <seed> <count> <fs store directory> <from>
import { pathToFileURL } from "node:url";
import { a2aAdapter } from "@skein/adapter-a2a";
import { foundryAdapter } from "@skein/adapter-foundry";
import { openaiAdapter } from "@skein/adapter-openai";
import { redisAdapter } from "@skein/adapter-redis";
import { openStore, parseThreadState, SkeinError } from "@skein/thread-core";
import fc from "fast-check";
import { type DocumentShape, settleWithin, shapeOf } from "../support/hangs.js";
import { hostileDocuments, polluted, prototypeFingerprint } from "../support/hostile-documents.js";
import { tally } from "../support/tally.js";

const [seed, count, directory, from] = process.argv.slice(2) as [string, string, string, string];
// Generous on purpose: a hang never settles, while a machine busy with other work may take seconds.
const HANG_MS = 30_000;
const BATCH = 250;

// Opening a state must not reach any service: every request the adapters try is counted and refused.
let networkAttempts = 0;
const refuse = async (): Promise<never> => {
  networkAttempts++;
  throw new Error("hostile-input harness: no network");
};
globalThis.fetch = refuse;
const adapters = [
  openaiAdapter({
    apiKey: "sk-hostile-input",
    baseURL: "http://127.0.0.1:9/v1",
    maxRetries: 0,
    timeout: 1000,
  }),
  foundryAdapter({
    endpoint: "https://hostile.example/api/projects/p",
    credential: { getToken: async () => ({ token: "t", expiresOnTimestamp: Date.now() + 60_000 }) },
    transport: { httpClient: { sendRequest: refuse }, fetch: refuse },
    maxRetries: 0,
    requestTimeoutMs: 1000,
  }),
  a2aAdapter(),
  redisAdapter(),
];
const memory = await openStore("memory:", { adapters });
const files = await openStore(pathToFileURL(directory).href, { adapters });

const targets: Array<[string, (document: unknown) => unknown]> = [
  ["parseThreadState", (document) => parseThreadState(document)],
  ["memory.open", async (document) => JSON.stringify(await memory.open(document))],
  ["fs.open", async (document) => JSON.stringify(await files.open(document))],
];
const outcomes: Record<string, Record<string, number>> = {};
const unexpected: Array<{ target: string; kind: string; error: string }> = [];
const slowest: Array<{ target: string; kind: string; ms: number }> = [];
const fingerprint = prototypeFingerprint();
let pollutedBy: string | undefined;
let documents = 0;
const kinds: Record<string, number> = {};

function report(hung?: { index: number; target: string; kind: string; shape: DocumentShape }): void {
  const summary = { documents, kinds, outcomes, unexpected, slowest, pollutedBy, networkAttempts, hung };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

for (let index = Number(from); index < Number(count); ) {
  const batch = Math.floor(index / BATCH);
  const generated = fc.sample(hostileDocuments({ json: false }), {
    seed: Number(seed) + batch,
    numRuns: BATCH,
  });
  for (const document of generated.slice(index % BATCH, Math.min(BATCH, Number(count) - batch * BATCH))) {
    documents++;
    const family = document.kind.split(":").slice(0, 2).join(":");
    kinds[family] = (kinds[family] ?? 0) + 1;
    for (const [target, call] of targets) {
      const started = performance.now();
      let outcome = "accepted";
      try {
        if (!(await settleWithin(() => call(document.value), HANG_MS)).settled) {
          report({ index, target, kind: document.kind, shape: shapeOf(document.value) });
          process.exit(3);
        }
      } catch (error) {
        if (SkeinError.isInstance(error)) outcome = (error as Error).name;
        else {
          outcome = "unexpected";
          unexpected.push({
            target,
            kind: document.kind,
            error: String((error as Error)?.stack ?? error).slice(0, 600),
          });
        }
      }
      const ms = performance.now() - started;
      slowest.push({ target, kind: document.kind, ms: Math.round(ms) });
      slowest.sort((a, b) => b.ms - a.ms).splice(5);
      tally(outcomes, target, outcome);
      if (!pollutedBy && (polluted() || prototypeFingerprint() !== fingerprint))
        pollutedBy = `${target} ${document.kind}`;
    }
    index++;
  }
}
await Promise.all([memory.close(), files.close()]);
report();
