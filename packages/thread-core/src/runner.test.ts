import { describe, expect, it } from "vitest";
import { MessageTooLargeError } from "./errors.js";
import type { Message } from "./message.js";
import { assertInputWithinBudget, runTargetType, unhonouredSettings } from "./runner.js";
import { openStore } from "./store/open-store.js";
import type { Thread } from "./thread.js";
import type { WorkflowThread } from "./workflow/workflow-thread.js";

function message(id: string, role: Message["role"], text: string): Message {
  return { id, role, createdAt: "2026-11-23T00:00:00.000Z", contents: [{ type: "text", text }] };
}

describe("runTargetType", () => {
  it("is a thread's own type, and a workflow's main sub-thread's, through wrappers and states", async () => {
    const store = await openStore("memory:");
    expect(runTargetType(await store.create())).toBe("memory");
    const workflow = (await store.create("workflow", { threads: [] })) as WorkflowThread;
    expect(runTargetType(workflow)).toBeUndefined();
    await workflow.addThread("main");
    expect(runTargetType(workflow)).toBe("memory");
    // thread-service's wrapper holds the workflow as `inner`; an object that only has the state still says.
    expect(runTargetType({ type: "workflow", inner: workflow } as unknown as Thread)).toBe("memory");
    const stateOnly = { type: "workflow", toJSON: () => workflow.toJSON() } as unknown as Thread;
    expect(runTargetType(stateOnly)).toBe("memory");
  });
});

describe("unhonouredSettings", () => {
  it("lists settings that ask for something and are not honoured; never tags", () => {
    const config = {
      model: "m",
      temperature: 0,
      systemPrompt: undefined,
      parameters: {},
      tags: ["a"],
      imageCapabilityNeeded: false,
      embeddingOutputNeeded: true,
    };
    expect(unhonouredSettings(config, ["model"])).toEqual(["temperature", "embeddingOutputNeeded"]);
    expect(unhonouredSettings(undefined, [])).toEqual([]);
  });
});

describe("assertInputWithinBudget", () => {
  it("refuses input over budget, naming its newest non-system message", () => {
    const input = [message("s", "system", "x".repeat(40)), message("u", "user", "y".repeat(40))];
    expect(() => assertInputWithinBudget("t", input, 28)).not.toThrow(); // 14 + 14 tokens
    const refusal = () => assertInputWithinBudget("t", input, 27, { source: "adapter-test" });
    expect(refusal).toThrow(MessageTooLargeError);
    expect(refusal).toThrow(/^\[adapter-test\] Message "u" of thread "t" needs about 28 tokens/);
    expect(() => assertInputWithinBudget("t", input, 10, { countTokens: () => 5 })).not.toThrow();
  });
});
