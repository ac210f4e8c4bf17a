import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fromMafSession, toMafSession } from "../src/index.js";
import { fixtureJson, fixtureText, IMPORT_TIME } from "./fixtures.js";

/** Every message of a memory state, as its one segment holds them. */
interface StoredMessage {
  role: string;
  contents: Array<{ type: string } & Record<string, unknown>>;
  [field: string]: unknown;
}

function messagesOf(state: unknown): StoredMessage[] {
  return (state as { segments: Array<{ messages: StoredMessage[] }> }).segments.flatMap(
    (segment) => segment.messages,
  );
}

describe("MAF Python sessions (AgentSession.to_dict)", () => {
  for (const file of ["a_session_in_memory.to_dict.json", "a2_session_in_memory_mixed_state.to_dict.json"]) {
    it(`${file}: imports, and writes back the document MAF wrote, keys in MAF's order`, async () => {
      const document = fixtureJson(`python/${file}`);
      const state = fromMafSession(document, { createdAt: IMPORT_TIME });
      expect(state.$type).toBe("memory");
      const back = await toMafSession(state, { language: "python" });
      expect(back).toEqual(document);
      expect(JSON.stringify(back)).toBe(JSON.stringify(document));
    });
  }

  it("maps MAF's names to skein's: ids, roles, author names, additional properties, MAF-only fields under maf", () => {
    const state = fromMafSession(fixtureJson("python/a_session_in_memory.to_dict.json"), {
      createdAt: IMPORT_TIME,
    });
    const messages = messagesOf(state);
    expect(state.id).toBe("sess_a_in_memory");
    expect(messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "assistant",
      "assistant",
      "user",
    ]);
    expect(messages[1]).toMatchObject({
      id: "msg_001_user",
      createdAt: IMPORT_TIME,
      authorName: "alice",
      metadata: { channel: "web", priority: 2, tags: ["a", "b"] },
      // MAF records no time: skein stamps one and remembers it made it up.
      maf: { generated: ["createdAt"] },
    });
    expect(messages[1]?.contents).toEqual([
      { type: "text", text: "What's the weather in Paris? See the attached files." },
      { type: "data", mediaType: "image/png", data: "iVBORw0KGgoAAAANSUhEUg==" },
      { type: "uri", uri: "https://example.com/forecast.pdf", mediaType: "application/pdf" },
      { type: "file", fileId: "file_abc123", name: "readings.csv", mediaType: "text/csv" },
    ]);
    expect(messages[2]?.contents).toEqual([
      {
        type: "reasoning",
        text: "The user wants the weather; call the tool.",
        maf: { protected_data: "opaque-encrypted-reasoning==", id: "rs_1" },
      },
      {
        type: "function_call",
        callId: "call_weather_1",
        name: "get_weather",
        arguments: { city: "Paris", unit: "celsius" },
        maf: { additional_properties: { origin: "fixture" } },
      },
      { type: "usage", inputTokens: 120, outputTokens: 30, totalTokens: 150, reasoningTokens: 12 },
    ]);
    expect(messages[4]?.contents?.[0]).toMatchObject({
      type: "function_result",
      callId: "call_weather_2",
      result: "",
      isError: true,
    });
    expect(messages[5]?.contents?.[1]).toEqual({
      type: "error",
      message: "Rate limit hit",
      code: "429",
      maf: { error_details: "retry after 1s" },
    });
    // The hosted tools, approvals and consent have no skein type: kept verbatim, as maf.<type>.
    expect(((messages[6]?.contents ?? []) as Array<{ type: string }>).map((content) => content.type)).toEqual(
      [
        "maf.hosted_vector_store",
        "maf.search_tool_call",
        "maf.search_tool_result",
        "maf.code_interpreter_tool_call",
        "maf.code_interpreter_tool_result",
        "maf.image_generation_tool_call",
        "maf.image_generation_tool_result",
        "maf.shell_tool_call",
        "maf.shell_tool_result",
        "maf.mcp_server_tool_call",
        "maf.mcp_server_tool_result",
        "maf.oauth_consent_request",
      ],
    );
    expect(state.context).toEqual({ maf: { state: { in_memory: {} } } });
    expect(state.metadata).toEqual({
      maf: {
        language: "python",
        sessionId: "sess_a_in_memory",
        document: "to_dict",
        historyKey: "in_memory",
      },
    });
  });

  it("keeps other providers' state (a2: state.custom) and writes it back in its place", async () => {
    const document = fixtureJson("python/a2_session_in_memory_mixed_state.to_dict.json");
    const state = fromMafSession(document, { createdAt: IMPORT_TIME });
    expect((state.context as { maf: { state: Record<string, unknown> } }).maf.state.custom).toEqual(
      (document.state as Record<string, unknown>).custom,
    );
  });
});

describe("MAF Python FileSessionStore files", () => {
  for (const file of [
    "sess_a_in_memory.json",
    "sess_a2_mixed_state.json",
    "sess_b_service.json",
    "sess_c_service_dict.json",
  ]) {
    it(`${file}: written back byte for byte as MAF's msgspec wrote it`, async () => {
      const text = fixtureText(`python/file_session_store/${file}`);
      const state = fromMafSession(text, { createdAt: IMPORT_TIME });
      expect(JSON.stringify(await toMafSession(state, { language: "python" }))).toBe(text);
    });
  }
});

describe("through a real store", () => {
  for (const url of ["memory:", "file"]) {
    it(`${url}: store.import of the state holds every message; the thread exports back to MAF's document`, async () => {
      const { mkdtemp, rm } = await import("node:fs/promises");
      const { tmpdir } = await import("node:os");
      const { join } = await import("node:path");
      const directory = url === "file" ? await mkdtemp(join(tmpdir(), "skein-maf-")) : undefined;
      const { fsAdapter } = await import("@skein/adapter-fs");
      const store = await openStore(directory ? `file:${directory}` : "memory:", { adapters: [fsAdapter()] });
      try {
        const document = fixtureJson("python/a_session_in_memory.to_dict.json");
        const thread = await store.import(fromMafSession(document, { createdAt: IMPORT_TIME }));
        expect((await thread.messages()).length).toBe(9);
        const again = await store.get("sess_a_in_memory");
        expect(await toMafSession(again, { language: "python" })).toEqual(document);
      } finally {
        await store.close();
        if (directory) await rm(directory, { recursive: true, force: true });
      }
    });
  }

  it("a thread made in skein writes what MAF reads: skein's times and extra fields in additional_properties.skein", async () => {
    const store = await openStore("memory:");
    try {
      const thread = await store.create({ id: "native" });
      await thread.append([
        {
          id: "m1",
          role: "user",
          createdAt: "2026-01-02T03:04:05.000Z",
          contents: [{ type: "text", text: "hi", providerData: { x: 1 } }],
        },
        {
          id: "m2",
          role: "tool",
          createdAt: "2026-01-02T03:04:06.000Z",
          contents: [{ type: "function_result", callId: "c1", result: { ok: false }, isError: true }],
        },
        {
          id: "m3",
          role: "assistant",
          createdAt: "2026-01-02T03:04:07.000Z",
          contents: [{ type: "source-url", url: "https://example.com" }],
        },
      ]);
      const session = await toMafSession(thread, { language: "python" });
      const written = (session.state as { in_memory: { messages: Array<Record<string, unknown>> } }).in_memory
        .messages;
      expect(written[0]).toEqual({
        role: "user",
        contents: [
          { type: "text", text: "hi", additional_properties: { skein: { providerData: { x: 1 } } } },
        ],
        message_id: "m1",
        additional_properties: { skein: { createdAt: "2026-01-02T03:04:05.000Z" } },
        type: "message",
      });
      expect(written[1]?.contents).toEqual([
        {
          type: "function_result",
          call_id: "c1",
          exception: '{"ok":false}',
          result: { ok: false },
          additional_properties: { skein: { isError: true } },
        },
      ]);
      expect(written[2]?.contents).toEqual([
        { type: "source-url", additional_properties: { skein: { url: "https://example.com" } } },
      ]);
      // And back: the same messages, times included.
      const back = fromMafSession(session, { createdAt: IMPORT_TIME });
      const messages = messagesOf(back);
      expect(messages).toEqual(await thread.messages());
    } finally {
      await store.close();
    }
  });
});
