import {
  type Message,
  type MessageInput,
  openStore,
  SkeinError,
  type Thread,
  type ThreadStore,
} from "@skein/thread-core";
import OpenAI from "openai";
import { type OpenAIAdapter, openaiAdapter } from "../src/index.js";
import { type OpenAIEmulator, startEmulator } from "./emulator/emulator.js";

export interface Harness {
  emulator: OpenAIEmulator;
  client: OpenAI;
  adapter: OpenAIAdapter;
  store: ThreadStore;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** The client's own retries. @default 0 */
  maxRetries?: number;
  /** @default 5000 */
  timeout?: number;
}

/** An emulator on loopback, the real `openai` client pointed at it, and a memory store with the adapter. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const emulator = await startEmulator();
  const client = new OpenAI({
    apiKey: emulator.apiKey,
    baseURL: `${emulator.url}/v1`,
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout ?? 5000,
  });
  const adapter = openaiAdapter({ client });
  const store = await openStore("memory:", { adapters: [adapter] });
  return {
    emulator,
    client,
    adapter,
    store,
    close: async () => {
      await store.close();
      await emulator.close();
    },
  };
}

/** Requests the emulator saw while `task` ran. */
export async function countRequests(harness: Harness, task: () => Promise<unknown>): Promise<number> {
  const before = harness.emulator.requests.length;
  await task();
  return harness.emulator.requests.length - before;
}

/** What a call threw, which must be a skein error; fails if it resolved. */
export async function caught(promise: Promise<unknown>): Promise<SkeinError> {
  try {
    await promise;
  } catch (error) {
    if (SkeinError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

/** Each message as its text, or its content types when it has no text: a compact transcript to compare. */
export function texts(messages: readonly Message[]): string[] {
  return messages.map((message) =>
    message.contents.map((content) => (content.type === "text" ? content.text : content.type)).join("|"),
  );
}

/** An `openai.conversation` thread holding `count` messages, alternating user and assistant, `message 0` first. */
export async function conversationWith(harness: Harness, count: number): Promise<Thread> {
  const thread = await harness.store.create("openai.conversation", { metadata: { user: "u-7" } });
  const inputs: MessageInput[] = Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? "user" : "assistant",
    text: `message ${index}`,
  }));
  await thread.append(inputs);
  return thread;
}
