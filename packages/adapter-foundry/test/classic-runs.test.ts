import { ConflictError, UnsupportedOperationError } from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import {
  FoundryAgentNotFoundError,
  type FoundryAgentThread,
  FoundryRunError,
  foundryRunner,
} from "../src/index.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

async function threadFor(agentId: string, settings = {}) {
  const store = await fixture.store(settings);
  const thread = (await store.create("foundry.thread", { agentId })) as FoundryAgentThread;
  await thread.append({ role: "user", text: "What is the weather?" });
  return thread;
}

function runsOf(thread: FoundryAgentThread) {
  return fixture.emulator.agents.threads.get(thread.threadId)?.runs ?? [];
}

/** The run statuses a poller saw, from the emulator's request log. */
function polledRuns(since: number) {
  return fixture.emulator.http.requests
    .slice(since)
    .filter((request) => /\/runs\/[^/]+$/.test(request.path) && request.method === "GET");
}

describe("foundryRunner on foundry.thread", () => {
  test("runs the agent through queued and in_progress to completed and returns its reply", async () => {
    const thread = await threadFor("asst_echo");
    const since = fixture.emulator.http.requests.length;
    const reply = await foundryRunner().run(thread);
    expect(reply).toHaveLength(1);
    expect(reply[0]).toMatchObject({
      role: "assistant",
      contents: [{ type: "text", text: "echo: What is the weather?" }],
    });
    expect(polledRuns(since)).toHaveLength(2);
    expect(runsOf(thread)[0]?.status).toBe("completed");
    const messages = await thread.messages();
    expect(messages.at(-1)).toEqual(reply[0]);
  });

  test("surfaces requires_action as function calls, takes the outputs, and completes", async () => {
    const thread = await threadFor("asst_weather");
    const runner = foundryRunner();
    const [calls] = await runner.run(thread);
    expect(calls?.contents).toEqual([
      {
        type: "function_call",
        callId: expect.stringMatching(/^call_/),
        name: "weather",
        arguments: { city: "Paris" },
      },
      {
        type: "function_call",
        callId: expect.stringMatching(/^call_/),
        name: "weather",
        arguments: { city: "Oslo" },
      },
    ]);
    // Asking again neither starts a run nor polls forever: the same calls come back.
    expect(await runner.run(thread)).toEqual([calls]);
    expect(runsOf(thread)).toHaveLength(1);

    const callIds = (calls?.contents ?? []).map((content) => String(content.callId));
    const partial = thread.append({
      role: "tool",
      contents: [{ type: "function_result", callId: callIds[0] as string, result: "sunny" }],
    });
    await expect(partial).rejects.toBeInstanceOf(ConflictError);

    const [outputs] = await thread.append({
      role: "tool",
      contents: [
        { type: "function_result", callId: callIds[0] as string, result: "sunny" },
        { type: "function_result", callId: callIds[1] as string, result: { rain: true } },
      ],
    });
    expect(outputs).toMatchObject({ role: "tool", metadata: { runId: runsOf(thread)[0]?.id } });
    const [answer] = await runner.run(thread);
    expect(answer?.contents).toEqual([{ type: "text", text: 'forecast: sunny | {"rain":true}' }]);
    expect(runsOf(thread)).toHaveLength(1);
    expect(runsOf(thread)[0]?.status).toBe("completed");
  });

  test("tool outputs with no run waiting for them are a conflict", async () => {
    const thread = await threadFor("asst_echo");
    const attempt = thread.append({
      role: "tool",
      contents: [{ type: "function_result", callId: "call_x", result: 1 }],
    });
    await expect(attempt).rejects.toBeInstanceOf(ConflictError);
    await expect(attempt).rejects.toThrow(/No run on thread .* is waiting for tool outputs/);
  });

  test.each([
    ["asst_broken", "failed", "server_error", true],
    ["asst_revoked", "cancelled", undefined, false],
    ["asst_stale", "expired", undefined, true],
  ])("a run of %s that ends %s is a FoundryRunError", async (agentId, ending, code, retryable) => {
    const thread = await threadFor(agentId);
    const run = foundryRunner().run(thread);
    await expect(run).rejects.toBeInstanceOf(FoundryRunError);
    const error = (await run.catch((reason: unknown) => reason)) as FoundryRunError;
    expect(error).toMatchObject({ ending, code, threadId: thread.id, runId: runsOf(thread)[0]?.id });
    expect(error.retryable).toBe(retryable);
    expect(error.message).toMatch(
      new RegExp(`^\\[adapter-foundry\\] Run run_\\w+ on thread .* ended as ${ending}`),
    );
  });

  test("a run aborted while the service is creating it is cancelled there too, and rejects with the abort reason", async () => {
    const thread = await threadFor("asst_sleepy");
    const controller = new AbortController();
    // The caller gives up the moment the service stores the run, before its answer is on its way back.
    const runs = runsOf(thread);
    runs.push = (...added) => {
      controller.abort(new Error("user gave up"));
      return Array.prototype.push.apply(runs, added);
    };
    await expect(foundryRunner().run(thread, { signal: controller.signal })).rejects.toThrow("user gave up");
    expect(runsOf(thread).map((run) => run.status)).toEqual(["cancelling"]);
  });

  test("an aborted run is cancelled on the service and rejects with the abort reason", async () => {
    const thread = await threadFor("asst_sleepy");
    const controller = new AbortController();
    const run = foundryRunner().run(thread, { signal: controller.signal });
    // Abort once the service holds the run, so there is one to cancel however busy the machine is.
    while (runsOf(thread).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error("user gave up"));
    await expect(run).rejects.toThrow("user gave up");
    expect(runsOf(thread)[0]?.status).toBe("cancelling");
  });

  test("a run that outlives runTimeoutMs is cancelled and fails as timed_out", async () => {
    const thread = await threadFor("asst_sleepy", { runTimeoutMs: 40 });
    const run = foundryRunner().run(thread);
    await expect(run).rejects.toMatchObject({ ending: "timed_out" });
    expect(runsOf(thread)[0]?.status).toBe("cancelling");
  });

  test("honours run settings the agent allows and refuses the others before running", async () => {
    const thread = await threadFor("asst_echo");
    await foundryRunner().run(thread, {
      config: { systemPrompt: "Answer in French.", temperature: 0.2, maxOutputTokens: 50 },
    });
    expect(runsOf(thread)[0]).toMatchObject({
      instructions: "Answer in French.",
      temperature: 0.2,
      max_completion_tokens: 50,
    });
    const refused = foundryRunner().run(thread, { config: { thinkingLevel: "high" } });
    await expect(refused).rejects.toBeInstanceOf(UnsupportedOperationError);
    expect(runsOf(thread)).toHaveLength(1);
  });

  test("config.model and the runner's agentId name another agent; an unknown one is named in the error", async () => {
    const thread = await threadFor("asst_weather");
    const [reply] = await foundryRunner({ agentId: "asst_echo" }).run(thread);
    expect(reply?.contents[0]).toMatchObject({ text: "echo: What is the weather?" });
    const missing = foundryRunner().run(thread, { config: { model: "asst_nobody" } });
    await expect(missing).rejects.toBeInstanceOf(FoundryAgentNotFoundError);
    await expect(missing).rejects.toMatchObject({ agent: "asst_nobody" });
  });
});
