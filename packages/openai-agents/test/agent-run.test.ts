import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { run, type SessionHistoryTransactionArgs } from "@openai/agents-core";
import { openStore, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OpenAIEmulator, startEmulator } from "../../adapter-openai/test/emulator/emulator.js";
import { createSkeinSession, SkeinSession } from "../src/index.js";
import { weatherAgent } from "./weather-agent.js";

const child = fileURLToPath(new URL("./children/resume-run.ts", import.meta.url));

describe("run(agent, input, { session }) with the SDK's Responses model", () => {
  let emulator: OpenAIEmulator;
  let directory: string;
  let url: string;
  let store: ThreadStore;
  beforeEach(async () => {
    emulator = await startEmulator();
    directory = await mkdtemp(join(tmpdir(), "skein-agents-run-"));
    url = `file://${directory}`;
    store = await openStore(url);
  });
  afterEach(async () => {
    await store.close();
    await emulator.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("keeps a tool call and its result, and sends the whole history on the next run", async () => {
    const agent = weatherAgent(emulator.url, emulator.apiKey, { approval: false });
    const session = await createSkeinSession({ store, sessionId: "chat-tools" });
    const first = await run(agent, "What is the weather in Paris?", { session });
    expect(first.finalOutput).toBe("The tool answered: sunny in Paris");
    const items = await session.getItems();
    expect(items.map((item) => item.type ?? "message")).toEqual([
      "message",
      "function_call",
      "function_call_result",
      "message",
    ]);
    // skein's own readers see the call, its result and the answer.
    const contents = (await session.thread.messages()).flatMap((message) =>
      message.contents.map((c) => c.type),
    );
    expect(contents).toEqual(["text", "function_call", "function_result", "text"]);

    // A new session object (as a new process would make) gives the model the whole history.
    const again = await createSkeinSession({ store, sessionId: "chat-tools" });
    const second = await run(agent, "thanks", { session: again });
    expect(second.finalOutput).toBe("echo: thanks");
    const lastCall = emulator.modelCalls.at(-1) as unknown as { context: Array<{ type: string }> };
    expect(lastCall.context.map((item) => item.type)).toEqual([
      "message",
      "function_call",
      "function_call_output",
      "message",
      "message",
    ]);
    expect(await again.getItems()).toHaveLength(6);
  });

  it("an approval interruption is resumed from a second process with the whole history", async () => {
    const agent = weatherAgent(emulator.url, emulator.apiKey, { approval: true });
    const session = await createSkeinSession({ store, sessionId: "chat-approval" });
    const first = await run(agent, "What is the weather in Oslo?", { session });
    expect(first.interruptions).toHaveLength(1);
    const stateFile = join(directory, "state.json");
    await writeFile(stateFile, first.state.toString());

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", child, url, "chat-approval", emulator.url, emulator.apiKey, stateFile],
      { cwd: fileURLToPath(new URL("..", import.meta.url)) },
    );
    expect(JSON.parse(stdout)).toEqual({ finalOutput: "The tool answered: sunny in Oslo" });

    const items = await (await createSkeinSession({ store, sessionId: "chat-approval" })).getItems();
    expect(items.map((item) => item.type ?? "message")).toEqual([
      "message",
      "function_call",
      "function_call_result",
      "message",
    ]);
    expect(items[0]).toEqual({ type: "message", role: "user", content: "What is the weather in Oslo?" });
  });

  it("an output guardrail's blocked turn is kept by the runner's history transaction, applied once", async () => {
    const agent = weatherAgent(emulator.url, emulator.apiKey, { approval: false }).clone({
      outputGuardrails: [
        { name: "block", execute: async () => ({ tripwireTriggered: true, outputInfo: {} }) },
      ],
    });
    const transactions: SessionHistoryTransactionArgs[] = [];
    class RecordingSession extends SkeinSession {
      override async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
        transactions.push(structuredClone(args));
        return super.applyHistoryTransaction(args);
      }
    }
    const session = new RecordingSession(
      (await createSkeinSession({ store, sessionId: "chat-guarded" })).thread,
    );
    await expect(run(agent, "What is the weather in Rome?", { session })).rejects.toThrow(/guardrail/i);
    expect(transactions.map((args) => args.transaction.type)).toEqual(["append_items"]);
    const items = await session.getItems();
    expect(items.map((item) => item.type)).toEqual(["message", "function_call", "function_call_result"]);

    // The runner's own transaction, retried by another process: nothing changes.
    await session.thread.refresh();
    const revision = session.thread.revision;
    const other = await createSkeinSession({ store, sessionId: "chat-guarded" });
    await other.applyHistoryTransaction(transactions[0] as SessionHistoryTransactionArgs);
    expect(await other.getItems()).toEqual(items);
    await session.thread.refresh();
    expect(session.thread.revision).toBe(revision);
  });
});
