// A runner of the application's own that calls the real `openai` client (against adapter-openai's loopback
// emulator) and lets the SDK's error through: the service stores that failure with the thread, and the key
// the service quoted in it must not be stored with it.
import { randomBytes } from "node:crypto";
import { openaiAdapter } from "@skein/adapter-openai";
import { openStore, type ThreadRunner, type ThreadStore } from "@skein/thread-core";
import OpenAI from "openai";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createThreadService, type ThreadService } from "../src/index.js";

/** The part of adapter-openai's emulator this test uses. */
interface OpenAIEmulator {
  url: string;
  inject(route: string, fault: { status?: number; message?: string }): void;
  close(): Promise<void>;
}

// Loaded by URL: the emulator is another package's test code, outside this package's TypeScript program.
const emulatorModule = new URL("../../adapter-openai/test/emulator/emulator.ts", import.meta.url).href;
const { startEmulator } = (await import(emulatorModule)) as {
  startEmulator(apiKey?: string): Promise<OpenAIEmulator>;
};

const KEY_TAIL = randomBytes(16).toString("hex");
const API_KEY = `sk-proj-${KEY_TAIL}`;

let emulator: OpenAIEmulator;
let store: ThreadStore;
let service: ThreadService;
let client: OpenAI;

beforeEach(async () => {
  emulator = await startEmulator(API_KEY);
  client = new OpenAI({ apiKey: API_KEY, baseURL: `${emulator.url}/v1`, maxRetries: 0, timeout: 20_000 });
  // The application's adapter holds the client, and so knows its key.
  store = await openStore("memory:", { adapters: [openaiAdapter({ client })] });
  const runner: ThreadRunner = {
    specificationVersion: "v1",
    supports: () => true,
    async run() {
      // The SDK's own error, raw: its message is the service's text.
      await client.responses.create({ model: "gpt-test", input: "hello" });
      return [];
    },
  };
  service = createThreadService({ store, runner });
});
afterEach(async () => {
  await service.close({ abort: true });
  await store.close();
  await emulator.close();
});

it("stores a failure's text without the credentials the service quoted in it", async () => {
  const { threadId } = await service.createThread();
  emulator.inject("responses.create", {
    status: 400,
    message: `The key ${KEY_TAIL} has no access to model gpt-test.`,
  });
  await expect(service.send(threadId, "hello")).rejects.toThrow();
  const failure = (await service.info(threadId)).lastFailure;
  expect(failure?.message).toContain("has no access to model gpt-test");
  expect(failure?.message).toContain("***");
  const stored = JSON.stringify(await store.export(threadId));
  expect(stored).toContain("has no access to model gpt-test");
  expect(stored).not.toContain(KEY_TAIL.slice(0, 8));
  expect(stored).not.toContain(KEY_TAIL.slice(-8));
});
