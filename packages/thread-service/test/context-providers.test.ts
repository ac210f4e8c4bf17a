import { type ContextProvider, messageText, openStore, type ThreadStore } from "@skein/thread-core";
import { beforeEach, describe, expect, it } from "vitest";
import { createThreadService, ThreadProcessingError } from "../src/index.js";
import { scriptedRunner } from "./fake-runners.js";

interface Facts {
  facts: string[];
  [key: string]: string[];
}

/** Remembers what the user said after "remember"; tells the model what it knows. */
const memory: ContextProvider<Facts> = {
  name: "memory",
  invoking: ({ state }) =>
    state && state.facts.length > 0
      ? {
          instructions: `Known facts: ${state.facts.join("; ")}`,
          messages: [{ role: "system", text: `memory holds ${state.facts.length} facts` }],
        }
      : undefined,
  invoked: ({ state, messages }) => {
    const said = messageText(messages[0] as never);
    if (!said.startsWith("remember ")) return undefined;
    return { facts: [...(state?.facts ?? []), said.slice("remember ".length)] };
  },
};

let store: ThreadStore;

beforeEach(async () => {
  store = await openStore("memory:");
});

describe("context providers", () => {
  it("keep their state in the thread's context and add context to later runs without storing it", async () => {
    const runner = scriptedRunner();
    const service = createThreadService({ store, runner, contextProviders: [memory] });
    const { threadId } = await service.createThread({ config: { systemPrompt: "Be brief." } });
    await service.send(threadId, "remember I like tea");
    expect(runner.seen[0]?.options.config?.systemPrompt).toBe("Be brief.");
    expect((await store.get(threadId)).context.memory).toEqual({ facts: ["I like tea"] });

    await service.send(threadId, "what do I like?");
    const second = runner.seen[1];
    expect(second?.options.config?.systemPrompt).toBe("Be brief.\n\nKnown facts: I like tea");
    expect(second?.view.map(messageText)).toEqual([
      "remember I like tea",
      "echo: remember I like tea",
      "memory holds 1 facts",
      "what do I like?",
    ]);
    const stored = (await (await store.get(threadId)).messages()).map(messageText);
    expect(stored).not.toContain("memory holds 1 facts");
    expect(JSON.parse(JSON.stringify(await store.get(threadId))).context).toEqual({
      memory: { facts: ["I like tea"] },
    });
  });

  it("find their state again in a new service instance, and branches inherit it", async () => {
    const first = createThreadService({ store, runner: scriptedRunner(), contextProviders: [memory] });
    const { threadId } = await first.createThread();
    await first.send(threadId, "remember the sea");
    await first.close();
    const runner = scriptedRunner();
    const second = createThreadService({ store, runner, contextProviders: [memory] });
    const branch = await second.branch(threadId);
    await second.send(branch.threadId, "remember the hills");
    expect(runner.seen[0]?.options.config?.systemPrompt).toBe("Known facts: the sea");
    expect((await store.get(branch.threadId)).context.memory).toEqual({ facts: ["the sea", "the hills"] });
    expect((await store.get(threadId)).context.memory).toEqual({ facts: ["the sea"] });
  });

  it("set their initial state when a thread is created, before its first message", async () => {
    const seen: unknown[] = [];
    const greeter: ContextProvider<{ greeted: boolean; model: string }> = {
      name: "greeter",
      initialState: ({ threadId, config }) => ({ greeted: false, model: `${threadId}:${config.model}` }),
      invoking: ({ state }) => {
        seen.push(state);
        return undefined;
      },
      invoked: ({ state }) => state && { ...state, greeted: true },
    };
    const service = createThreadService({ store, runner: scriptedRunner(), contextProviders: [greeter] });
    const { threadId } = await service.createThread({ id: "t-1", config: { model: "m", maxTime: 1000 } });
    expect((await store.get(threadId)).context).toEqual({ greeter: { greeted: false, model: "t-1:m" } });
    await service.send(threadId, "hi");
    expect(seen).toEqual([{ greeted: false, model: "t-1:m" }]);
    expect((await store.get(threadId)).context.greeter).toEqual({ greeted: true, model: "t-1:m" });
  });

  it("fail the message when they throw", async () => {
    const broken: ContextProvider = {
      name: "broken",
      invoking: () => {
        throw new Error("index offline");
      },
    };
    const service = createThreadService({ store, runner: scriptedRunner(), contextProviders: [broken] });
    const { threadId } = await service.createThread();
    const error = await service.send(threadId, "hi").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ThreadProcessingError);
    expect((error as Error).message).toMatch(/index offline/);
  });
});
