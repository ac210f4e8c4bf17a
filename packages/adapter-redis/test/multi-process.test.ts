import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { clusterUrl, deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

const WRITERS = 4;
const APPENDS = 200;
const writerScript = fileURLToPath(new URL("./fixtures/append-writer.ts", import.meta.url));

function runWriter(url: string, prefix: string, threadId: string, writer: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", writerScript, url, prefix, threadId, `w${writer}`, String(APPENDS)],
      { stdio: ["ignore", "inherit", "pipe"] },
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

describe.each([
  ["a single server", singleUrl],
  ["Redis Cluster", clusterUrl],
])("%s: 4 processes appending to one thread", (_name, url) => {
  let prefix = "";
  afterEach(async () => {
    await deleteKeys(url(), prefix);
  });

  it(`keeps all ${WRITERS * APPENDS} messages, each once, and each writer's order`, async () => {
    prefix = uniquePrefix("processes");
    const store = redisStore({ url: url(), prefix });
    const thread = await store.create({ id: "shared" });
    await Promise.all(
      Array.from({ length: WRITERS }, (_, writer) => runWriter(url(), prefix, thread.id, writer)),
    );
    const ids = (await thread.messages()).map((message) => message.id);
    expect(ids).toHaveLength(WRITERS * APPENDS);
    expect(new Set(ids).size).toBe(WRITERS * APPENDS);
    for (let writer = 0; writer < WRITERS; writer++) {
      const own = ids.filter((id) => id.startsWith(`w${writer}-`));
      expect(own).toEqual(Array.from({ length: APPENDS }, (_, index) => `w${writer}-${index}`));
    }
    await thread.refresh();
    expect(thread.revision).toBe(WRITERS * APPENDS);
    await store.close();
  });
});
