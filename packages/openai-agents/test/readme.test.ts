// The README's example is test/readme-example.ts verbatim (type-checked with the package), and it runs
// against adapter-openai's loopback emulator.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenAIEmulator, startEmulator } from "../../adapter-openai/test/emulator/emulator.js";

const example = fileURLToPath(new URL("./readme-example.ts", import.meta.url));
const packageDirectory = fileURLToPath(new URL("..", import.meta.url));

describe("README example", () => {
  let emulator: OpenAIEmulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(() => emulator.close());

  it("is test/readme-example.ts, verbatim", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const block = readme
      .split("<!-- example: test/readme-example.ts")[1]
      ?.split("```ts\n")[1]
      ?.split("```")[0];
    expect(block?.trimEnd()).toBe(readFileSync(example, "utf8").trimEnd());
  });

  it("runs: two turns in one session, and a fork of its thread", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", example], {
      cwd: packageDirectory,
      env: {
        ...process.env,
        SKEIN_STORE: "memory:",
        OPENAI_API_KEY: emulator.apiKey,
        OPENAI_BASE_URL: `${emulator.url}/v1`,
        OPENAI_AGENTS_DISABLE_TRACING: "1",
      },
    });
    expect(stdout.trim()).toBe("echo: What did I just say? · 4 items\nthe fork has 4 messages");
  });
});
