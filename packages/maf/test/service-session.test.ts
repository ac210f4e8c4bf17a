// Service session ids become the remote thread states of skein's adapters. @skein/maf does not depend on the
// adapters: it writes their plain JSON, and these tests check that each adapter's own parser takes it.
import { type TaskState, taskStateToJSON } from "@a2a-js/sdk";
import { A2aThreadStateSchema, a2aThreadType } from "@skein/adapter-a2a";
import {
  OpenAIConversationStateSchema,
  OpenAIResponsesStateSchema,
  openaiConversationType,
  openaiResponsesType,
} from "@skein/adapter-openai";
import { createRegistry, parseThreadState, UnsupportedOperationError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fromMafSession, toMafSession } from "../src/index.js";
import { fixtureJson, IMPORT_TIME } from "./fixtures.js";

const registry = createRegistry();
for (const type of [openaiResponsesType, openaiConversationType, a2aThreadType]) registry.register(type);

describe("a string service_session_id", () => {
  it("b: resp_… is an openai.responses thread continuing that response, and goes back to MAF unchanged", async () => {
    const document = fixtureJson("python/b_session_service_id.to_dict.json");
    const state = fromMafSession(document, { createdAt: IMPORT_TIME });
    expect(state).toMatchObject({
      $type: "openai.responses",
      id: "sess_b_service",
      previousResponseId: "resp_0123456789abcdef",
    });
    expect(OpenAIResponsesStateSchema.safeParse(state).success).toBe(true);
    expect(parseThreadState(state, { registry })).toMatchObject({ $type: "openai.responses" });
    expect(await toMafSession(state, { language: "python" })).toEqual(document);
  });

  it("conv_… is an openai.conversation thread, from Python and from .NET's conversationId, and back to each", async () => {
    const python = { type: "session", session_id: "s1", service_session_id: "conv_abc", state: {} };
    const fromPython = fromMafSession(python, { createdAt: IMPORT_TIME });
    expect(fromPython).toMatchObject({ $type: "openai.conversation", conversationId: "conv_abc" });
    expect(OpenAIConversationStateSchema.safeParse(fromPython).success).toBe(true);
    expect(parseThreadState(fromPython, { registry })).toMatchObject({ $type: "openai.conversation" });
    expect(await toMafSession(fromPython, { language: "python" })).toEqual(python);
    expect(await toMafSession(fromPython, { language: "dotnet" })).toEqual({ conversationId: "conv_abc" });

    const dotnet = { conversationId: "conv_abc" };
    const fromDotnet = fromMafSession(dotnet, { id: "t1", createdAt: IMPORT_TIME });
    expect(fromDotnet).toMatchObject({ $type: "openai.conversation", id: "t1" });
    expect(await toMafSession(fromDotnet, { language: "dotnet" })).toEqual(dotnet);
  });

  it("a session with local messages stays local: the service id is kept in metadata, nothing dropped", async () => {
    const document = fixtureJson("python/a_session_in_memory.to_dict.json");
    const withId = { ...document, service_session_id: "resp_1" };
    const state = fromMafSession(withId, { createdAt: IMPORT_TIME });
    expect(state.$type).toBe("memory");
    expect((state.metadata as { maf: { serviceSessionId: string } }).maf.serviceSessionId).toBe("resp_1");
    expect(await toMafSession(state, { language: "python" })).toEqual(withId);
  });
});

describe("an A2A service_session_id ({ context_id, task_id, task_state })", () => {
  const document = fixtureJson("python/c_session_service_id_dict.to_dict.json");

  it("c: with the agent's URL, an a2a thread on that context and task, state by the protobuf enum", async () => {
    const state = fromMafSession(document, {
      createdAt: IMPORT_TIME,
      a2aAgentUrl: "https://agents.example/travel",
    });
    expect(state).toMatchObject({
      $type: "a2a",
      agentUrl: "https://agents.example/travel",
      contextId: "ctx-42",
      taskId: "task-7",
      taskState: "completed",
      conversation: [{ taskId: "task-7" }],
    });
    // MAF keeps the a2a-sdk's protobuf enum number: 3 is what @a2a-js/sdk calls TASK_STATE_COMPLETED.
    expect(taskStateToJSON(3 as TaskState)).toBe("TASK_STATE_COMPLETED");
    expect(A2aThreadStateSchema.safeParse(state).success).toBe(true);
    expect(parseThreadState(state, { registry })).toMatchObject({ $type: "a2a" });
    expect(await toMafSession(state, { language: "python" })).toEqual(document);
  });

  it("every task state number maps to the name @a2a-js/sdk gives it, and back", async () => {
    for (let number = 0; number <= 8; number++) {
      const session = {
        ...document,
        service_session_id: { context_id: "c", task_id: "t", task_state: number },
      };
      const state = fromMafSession(session, {
        createdAt: IMPORT_TIME,
        a2aAgentUrl: "https://agents.example/a",
      });
      const wire = taskStateToJSON(number as TaskState)
        .replace(/^TASK_STATE_/, "")
        .toLowerCase()
        .replaceAll("_", "-");
      expect((state as unknown as { taskState: string }).taskState).toBe(wire);
      expect(await toMafSession(state, { language: "python" })).toEqual(session);
    }
  });

  it("c: without the agent's URL (MAF does not record it), the id is kept in metadata and written back", async () => {
    const state = fromMafSession(document, { createdAt: IMPORT_TIME });
    expect(state.$type).toBe("memory");
    expect((state.metadata as { maf: { serviceSessionId: unknown } }).maf.serviceSessionId).toEqual(
      document.service_session_id,
    );
    expect(await toMafSession(state, { language: "python" })).toEqual(document);
  });

  it("an a2a thread cannot be a .NET ChatClientAgentSession: refused, naming why", async () => {
    const state = fromMafSession(document, {
      createdAt: IMPORT_TIME,
      a2aAgentUrl: "https://agents.example/travel",
    });
    await expect(toMafSession(state, { language: "dotnet" })).rejects.toSatisfy((error) =>
      UnsupportedOperationError.isInstance(error),
    );
  });
});

describe("remote threads holding what the service does not", () => {
  it("an openai.responses thread with input not yet sent is refused, not written without it", async () => {
    const state = fromMafSession(fixtureJson("python/b_session_service_id.to_dict.json"), {
      createdAt: IMPORT_TIME,
    });
    const pending = [
      { id: "m1", role: "user", createdAt: IMPORT_TIME, contents: [{ type: "text", text: "hi" }] },
    ];
    await expect(toMafSession({ ...state, pending }, { language: "python" })).rejects.toSatisfy((error) =>
      UnsupportedOperationError.isInstance(error),
    );
  });

  it("an a2a thread whose conversation holds messages the agent did not record is refused", async () => {
    const state = fromMafSession(fixtureJson("python/c_session_service_id_dict.to_dict.json"), {
      createdAt: IMPORT_TIME,
      a2aAgentUrl: "https://agents.example/travel",
    });
    const conversation = [{ taskId: "task-7" }, { messages: [] }];
    await expect(toMafSession({ ...state, conversation }, { language: "python" })).rejects.toSatisfy(
      (error) => UnsupportedOperationError.isInstance(error),
    );
  });
});
