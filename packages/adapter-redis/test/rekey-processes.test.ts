import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

const WRITERS = 2;
const APPENDS = 150;
const writerScript = fileURLToPath(new URL("./fixtures/encrypted-append-writer.ts", import.meta.url));

function runWriter(prefix: string, writer: number, keys: Record<string, Buffer>, current: string) {
  const encoded = Object.fromEntries(Object.entries(keys).map(([id, key]) => [id, key.toString("base64")]));
  return new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", writerScript, singleUrl(), prefix, "rotated", `w${writer}`, String(APPENDS)],
      {
        stdio: ["ignore", "inherit", "pipe"],
        env: { ...process.env, SKEIN_TEST_KEYS: JSON.stringify({ current, keys: encoded }) },
      },
    );
    let errors = "";
    child.stderr.on("data", (chunk) => {
      errors += chunk;
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`writer ${writer} exited ${code}: ${errors}`)),
    );
  });
}

describe("key rotation beside writers in other processes", () => {
  let prefix = "";
  afterEach(async () => {
    await deleteKeys(singleUrl(), prefix);
  });

  it(`loses none of ${WRITERS * APPENDS} appends made by 2 processes while rekey runs, and reads with the new key alone`, async () => {
    prefix = uniquePrefix("rekey-processes");
    const old = { "2026-06": randomBytes(32) };
    const both = { ...old, "2026-12": randomBytes(32) };
    const seed = redisStore({ url: singleUrl(), prefix, encryption: { keys: old, current: "2026-06" } });
    const thread = await seed.create({ id: "rotated", metadata: { topic: "rotation" } });
    await thread.append(
      Array.from({ length: 100 }, (_, index) => ({
        id: `seed-${index}`,
        role: "user" as const,
        text: `seed ${index}`,
      })),
    );
    await seed.close();

    // A writer that lists the new key but still writes with the old one (not yet switched over), and one
    // that writes with the new key, both beside rekey. (A process without the new key could not read what
    // rekey moved: every process lists the new key before any writes with it.)
    const writers = Promise.all([
      runWriter(prefix, 0, both, "2026-06"),
      runWriter(prefix, 1, both, "2026-12"),
    ]);
    const rekeying = redisStore({ url: singleUrl(), prefix, encryption: { keys: both, current: "2026-12" } });
    let finished = false;
    void writers.finally(() => {
      finished = true;
    });
    let runs = 0;
    while (!finished) {
      await rekeying.rekey({ batchSize: 10 });
      runs++;
    }
    await writers;
    // The writer on the old key has stopped: one more run moves what it wrote last.
    const last = await rekeying.rekey({ batchSize: 10 });
    await rekeying.close();
    expect(runs).toBeGreaterThan(0);
    expect(last.complete).toBe(true);
    expect(last.remaining).toEqual({});

    const reader = redisStore({
      url: singleUrl(),
      prefix,
      encryption: { keys: { "2026-12": both["2026-12"] }, current: "2026-12" },
    });
    const stored = await reader.get("rotated");
    const messages = await stored.messages();
    const ids = messages.map((message) => message.id);
    expect(ids).toHaveLength(100 + WRITERS * APPENDS);
    expect(new Set(ids).size).toBe(ids.length);
    for (let writer = 0; writer < WRITERS; writer++) {
      expect(ids.filter((id) => id.startsWith(`w${writer}-`))).toEqual(
        Array.from({ length: APPENDS }, (_, index) => `w${writer}-${index}`),
      );
    }
    expect(stored.metadata).toEqual({ topic: "rotation" });
    const again = await reader.rekey();
    expect(again.rewritten).toEqual({});
    await reader.close();
  }, 120_000);
});
