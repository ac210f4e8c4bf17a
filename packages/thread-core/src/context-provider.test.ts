import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type ContextProvider,
  initialProviderStates,
  runWithContextProviders,
  withContextProviders,
} from "./context-provider.js";
import { type Message, messageText } from "./message.js";
import type { RunOptions, ThreadRunner } from "./runner.js";
import { openStore } from "./store/open-store.js";
import { defineThreadType, ThreadStateSchema } from "./thread-type.js";

interface Notes {
  notes: string[];
  [key: string]: string[];
}

/** Keeps what the user said after "note"; starts every thread with one note. */
const notebook: ContextProvider<Notes> = {
  name: "notebook",
  initialState: ({ config }) => ({ notes: [`model ${config.model ?? "unknown"}`] }),
  invoking: ({ state }) => ({
    instructions: `Notes: ${state?.notes.join("; ")}`,
    messages: [{ role: "system", text: `${state?.notes.length} notes` }],
  }),
  invoked: ({ state, messages }) => {
    const said = messages.map(messageText).find((text) => text.startsWith("note "));
    return said === undefined ? undefined : { notes: [...(state?.notes ?? []), said.slice(5)] };
  },
};

/** A plain runner, as any application could write: answers with what it saw. */
function recordingRunner(): ThreadRunner & { seen: Array<{ options: RunOptions; view: Message[] }> } {
  const seen: Array<{ options: RunOptions; view: Message[] }> = [];
  return {
    specificationVersion: "v1",
    supports: () => true,
    seen,
    async run(thread, options = {}) {
      const view = await thread.view();
      seen.push({ options, view });
      return thread.append({ role: "assistant", text: `saw ${view.length}` });
    },
  };
}

describe("withContextProviders", () => {
  it("gives any runner the providers' context and stores their states in the thread", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    const inner = recordingRunner();
    const runner = withContextProviders(inner, [notebook]);
    expect(runner.supports(thread)).toBe(true);

    await thread.append({ role: "user", text: "note tea" });
    const output = await runner.run(thread, { config: { systemPrompt: "Be brief.", model: "m1" } });
    expect(output.map(messageText)).toEqual(["saw 2"]);
    expect(inner.seen[0]?.options.config?.systemPrompt).toBe("Be brief.\n\nNotes: model m1");
    expect(inner.seen[0]?.view.map(messageText)).toEqual(["1 notes", "note tea"]);
    // The initial state, then what `invoked` learnt, are in the thread's context; provider messages are not.
    expect((await store.get(thread.id)).context.notebook).toEqual({ notes: ["model m1", "tea"] });
    expect((await thread.messages()).map(messageText)).toEqual(["note tea", "saw 2"]);

    await thread.append({ role: "user", text: "what do I like?" });
    await runner.run(thread, { config: { model: "m1" } });
    expect(inner.seen[1]?.options.config?.systemPrompt).toBe("Notes: model m1; tea");
    expect(inner.seen[1]?.view.map(messageText)).toEqual(["note tea", "saw 2", "2 notes", "what do I like?"]);
  });

  it("stores an initial state even when invoked learns nothing, and no state when the run fails", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    const failing: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      run: async () => {
        throw new Error("model offline");
      },
    };
    await thread.append({ role: "user", text: "hello" });
    await expect(withContextProviders(failing, [notebook]).run(thread)).rejects.toThrow(/model offline/);
    expect((await store.get(thread.id)).context).toEqual({});

    await withContextProviders(recordingRunner(), [notebook]).run(thread);
    expect((await store.get(thread.id)).context.notebook).toEqual({ notes: ["model unknown"] });
  });

  it("gives the runner the providers' messages as RunOptions.transient, beside the view", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    await thread.append({ role: "user", text: "hello" });
    const inner = recordingRunner();
    await withContextProviders(inner, [notebook]).run(thread, { config: { model: "m1" } });
    expect(inner.seen[0]?.options.transient?.map(messageText)).toEqual(["1 notes"]);
  });

  it("two overlapping runs on one thread keep both runs' provider updates", async () => {
    const store = await openStore("memory:");
    const created = await store.create();
    let arrived = 0;
    let release: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    const collector: ContextProvider<{ notes: string[] }> = {
      name: "collector",
      initialState: () => ({ notes: [] }),
      invoked: async ({ state, messages }) => {
        // The first call of each run waits until both runs have read the state.
        if (++arrived === 2) release();
        await both;
        return { notes: [...(state?.notes ?? []), ...messages.map(messageText)] };
      },
    };
    const runner: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      run: async (thread) => thread.append({ role: "assistant", text: "ok" }),
    };
    const run = async (text: string) => {
      const thread = await store.get(created.id);
      const [input] = await thread.append({ role: "user", text });
      return runWithContextProviders({ runner, providers: [collector], thread, input: [input as Message] });
    };
    await Promise.all([run("tea"), run("coffee")]);
    const stored = (await store.get(created.id)).context.collector as { notes: string[] };
    expect([...stored.notes].sort()).toEqual(["coffee", "tea"]);
  });

  it("a provider that changes its state in place works on a local thread of your own type", async () => {
    const store = await openStore("memory:");
    store.registry.register(
      defineThreadType({
        type: "acme.counted",
        schema: ThreadStateSchema.extend({ name: z.string() }),
        local: true,
      }),
    );
    const thread = await store.create("acme.counted", { name: "c", context: { counter: { runs: 0 } } });
    const counter: ContextProvider<{ runs: number }> = {
      name: "counter",
      invoked: ({ state }) => {
        const next = state ?? { runs: 0 };
        next.runs += 1; // in place, as an application may write it
        return next;
      },
    };
    const runner = withContextProviders(recordingRunner(), [counter]);
    await thread.append({ role: "user", text: "one" });
    await runner.run(thread, {});
    await runner.run(thread, {});
    expect((await store.get(thread.id)).context.counter).toEqual({ runs: 2 });
  });

  it("asks the wrapped runner whether it supports a thread", async () => {
    const thread = await (await openStore("memory:")).create();
    const picky: ThreadRunner = { ...recordingRunner(), supports: () => false };
    expect(withContextProviders(picky, [notebook]).supports(thread)).toBe(false);
  });

  it("refuses unnamed or twice-named providers", () => {
    expect(() => withContextProviders(recordingRunner(), [notebook, notebook])).toThrow(/two context/);
    expect(() => withContextProviders(recordingRunner(), [{ name: "" }])).toThrow(/non-empty name/);
  });
});

describe("initialProviderStates", () => {
  it("collects the state each provider wants on a new thread", async () => {
    const silent: ContextProvider = { name: "silent" };
    expect(
      await initialProviderStates([notebook, silent], { threadId: "t", config: { model: "m2" } }),
    ).toEqual({ notebook: { notes: ["model m2"] } });
  });
});
