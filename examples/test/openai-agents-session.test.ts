import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenAIEmulator, startEmulator } from "../../packages/adapter-openai/test/emulator/emulator.js";

const script = fileURLToPath(new URL("../openai-agents-session/chat.mjs", import.meta.url));

describe("examples/openai-agents-session", () => {
  let emulator: OpenAIEmulator;
  let directory: string;
  beforeAll(async () => {
    emulator = await startEmulator();
    directory = mkdtempSync(join(tmpdir(), "skein-agents-example-"));
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("two processes continue one session on a file store", async () => {
    const chat = (message: string) =>
      promisify(execFile)(process.execPath, [script, `file://${directory}`, "s-1", message], {
        env: {
          ...process.env,
          OPENAI_API_KEY: emulator.apiKey,
          OPENAI_BASE_URL: `${emulator.url}/v1`,
          OPENAI_AGENTS_DISABLE_TRACING: "1",
        },
      });
    expect((await chat("What is the weather in Paris?")).stdout).toBe(
      "The tool answered: sunny in Paris\n(4 items in session s-1)\n",
    );
    expect((await chat("thanks")).stdout).toBe("echo: thanks\n(6 items in session s-1)\n");
    // The second process sent the first one's turn to the model.
    expect((emulator.modelCalls.at(-1) as unknown as { context: unknown[] }).context).toHaveLength(5);
  });
});
