// Deterministic runners for the tests: plain objects with a `run` function, as any application could write.
import { setTimeout as sleep } from "node:timers/promises";
import {
  type Message,
  type MessageInput,
  messageText,
  type RunOptions,
  type Thread,
  type ThreadRunner,
} from "@skein/thread-core";

/** The text of the newest user message of the thread: what a run is answering. */
export async function lastUserText(thread: Thread): Promise<string> {
  const recent = await thread.messages({ last: 20 });
  const user = [...recent].reverse().find((message) => message.role === "user");
  return user ? messageText(user) : "";
}

/** Answers every message at once with `reply(text)` (by default `echo: <text>`). */
export function scriptedRunner(
  reply: (text: string, thread: Thread, options: RunOptions) => string | MessageInput[] = (text) =>
    `echo: ${text}`,
): ThreadRunner & { seen: Array<{ text: string; options: RunOptions; view: Message[] }> } {
  const seen: Array<{ text: string; options: RunOptions; view: Message[] }> = [];
  return {
    specificationVersion: "v1",
    supports: () => true,
    seen,
    async run(thread, options = {}) {
      const text = await lastUserText(thread);
      seen.push({ text, options, view: await thread.view() });
      const answer = reply(text, thread, options);
      const inputs = typeof answer === "string" ? [{ role: "assistant" as const, text: answer }] : answer;
      return thread.append(inputs);
    },
  };
}

/** Waits `delayMs` (stopping at once when aborted) before answering. */
export function slowRunner(delayMs: number | ((text: string) => number)): ThreadRunner {
  return {
    specificationVersion: "v1",
    supports: () => true,
    async run(thread, options = {}) {
      const text = await lastUserText(thread);
      const wait = typeof delayMs === "number" ? delayMs : delayMs(text);
      await sleep(wait, undefined, { signal: options.signal });
      return thread.append({ role: "assistant", text: `done: ${text}` });
    },
  };
}

export interface HeldCall {
  text: string;
  thread: Thread;
  signal: AbortSignal | undefined;
  /** Lets the run answer `answer` (default `done: <text>`). */
  release(answer?: string): void;
  /** Settles when the run has returned or thrown. */
  finished: Promise<void>;
}

/**
 * Every run waits until the test releases it (or its signal aborts), so tests decide exactly what is in
 * flight. `calls` lists the runs in the order they started; `active` counts those not yet finished.
 */
export function heldRunner(): ThreadRunner & {
  calls: HeldCall[];
  active: () => number;
  maxActive: () => number;
  nextCall: () => Promise<HeldCall>;
} {
  const calls: HeldCall[] = [];
  const waiters: Array<(call: HeldCall) => void> = [];
  let active = 0;
  let maxActive = 0;
  let handed = 0;
  return {
    specificationVersion: "v1",
    supports: () => true,
    calls,
    active: () => active,
    maxActive: () => maxActive,
    nextCall: () =>
      new Promise((resolve) => {
        const call = calls[handed];
        if (call) {
          handed++;
          resolve(call);
        } else waiters.push(resolve);
      }),
    async run(thread, options = {}) {
      active++;
      maxActive = Math.max(maxActive, active);
      const text = await lastUserText(thread);
      let release!: (answer?: string) => void;
      let markFinished!: () => void;
      const released = new Promise<string | undefined>((resolve) => {
        release = resolve;
      });
      const call: HeldCall = {
        text,
        thread,
        signal: options.signal,
        release,
        finished: new Promise((resolve) => {
          markFinished = resolve;
        }),
      };
      calls.push(call);
      const waiter = waiters.shift();
      if (waiter) {
        handed++;
        waiter(call);
      }
      try {
        const answer = await new Promise<string | undefined>((resolve, reject) => {
          options.signal?.addEventListener("abort", () => reject(options.signal?.reason), { once: true });
          void released.then(resolve);
        });
        return await thread.append({ role: "assistant", text: answer ?? `done: ${text}` });
      } finally {
        active--;
        markFinished();
      }
    },
  };
}
