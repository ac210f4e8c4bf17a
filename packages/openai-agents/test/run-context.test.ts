// agents-core 0.20 added `RunContextAwareSession` (sessions that opt in with `acceptsRunContext: true` get the run
// context as a trailing argument of every method) and a second `runContext` parameter of
// `applyHistoryTransaction`. SkeinSession does not opt in: a thread is chosen when the session is made, and the
// application's context has no say in where or how items are stored. These tests run on both majors (0.14 on
// Node 20, 0.20 on Node 24 in `npm test`) and pin that choice.
import * as agentsCore from "@openai/agents-core";
import { type AgentInputItem, RunContext, run } from "@openai/agents-core";
import { openStore, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OpenAIEmulator, startEmulator } from "../../adapter-openai/test/emulator/emulator.js";
import { createSkeinSession } from "../src/index.js";
import { weatherAgent } from "./weather-agent.js";

const user = (text: string): AgentInputItem => ({ role: "user", content: [{ type: "input_text", text }] });

/** 0.20's guard, when this major has it: the runner passes the run context only to sessions it accepts. */
const isRunContextAware = (agentsCore as Record<string, unknown>).isRunContextAwareSession as
  | ((session: unknown) => boolean)
  | undefined;

describe("the run context (agents-core 0.20's RunContextAwareSession)", () => {
  let emulator: OpenAIEmulator;
  let store: ThreadStore;
  beforeEach(async () => {
    emulator = await startEmulator();
    store = await openStore("memory:");
  });
  afterEach(async () => {
    await store.close();
    await emulator.close();
  });

  it("a session does not opt in, so a run with a context keeps its history as on 0.14", async () => {
    const session = await createSkeinSession({ store, sessionId: "with-context" });
    // The Node 24 pass (SKEIN_COMPAT=current) must really have loaded 0.20, where the guard exists.
    expect(typeof isRunContextAware).toBe(process.env.SKEIN_COMPAT === "current" ? "function" : "undefined");
    expect("acceptsRunContext" in session).toBe(false);
    if (isRunContextAware) expect(isRunContextAware(session)).toBe(false);
    const agent = weatherAgent(emulator.url, emulator.apiKey, { approval: false });
    const result = await run(agent, "hello", { session, context: { tenant: "t-1" } });
    expect(result.finalOutput).toBe("echo: hello");
    const items = await session.getItems();
    expect(items.map((item) => ("role" in item ? item.role : item.type))).toEqual(["user", "assistant"]);
    // Nothing of the context reaches the stored messages.
    expect(JSON.stringify(await session.thread.messages())).not.toContain("t-1");
  });

  it("applyHistoryTransaction given a run context as 0.20 declares it applies once, the context ignored", async () => {
    const session = await createSkeinSession({ store, sessionId: "transaction-context" });
    const args = {
      operationId: "op-1",
      transaction: { type: "append_items" as const, items: [user("one")] },
    };
    await session.applyHistoryTransaction(args, new RunContext({ tenant: "t-1" }));
    // The same operation again, with another context: already applied, nothing written.
    await session.applyHistoryTransaction(args, new RunContext({ tenant: "t-2" }));
    expect(await session.getItems()).toEqual([user("one")]);
    expect(await session.thread.messages()).toHaveLength(1);
  });
});
