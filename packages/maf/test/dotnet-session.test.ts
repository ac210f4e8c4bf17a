// MAF .NET sessions. The fixtures are the JSON of MAF .NET's own ChatClientAgentSessionTests; skein's own case,
// test/dotnet/all-content-types.session.json, follows Microsoft.Extensions.AI.Abstractions 10.10 at
// dotnet/extensions commit 5862342c (2026-08-19): ChatMessage.cs (authorName, createdAt, role, contents, messageId,
// additionalProperties), AIContent.cs ($type values, additionalProperties), TextContent.cs, DataContent.cs (uri
// and name; mediaType is [JsonIgnore]), UriContent.cs, HostedFileContent.cs (sizeInBytes), TextReasoningContent.cs
// (protectedData), FunctionCallContent.cs, McpServerToolCallContent.cs (name, serverName, arguments),
// HostedVectorStoreContent.cs, UsageContent.cs with UsageDetails.cs (details, additionalCounts),
// FunctionResultContent.cs and ErrorContent.cs (errorCode, details).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromMafSession, MafDocumentError, toMafSession } from "../src/index.js";
import { fixtureJson, fixtureText, IMPORT_TIME } from "./fixtures.js";

const ownCase = JSON.parse(
  readFileSync(new URL("./dotnet/all-content-types.session.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

type Document = Record<string, unknown>;

/** What .NET's reader fills in for a ChatMessage property left out: role `user`, no contents. */
function withDotnetDefaults(document: Document): Document {
  const copy = structuredClone(document) as {
    stateBag?: { InMemoryChatHistoryProvider?: { messages: Array<Record<string, unknown>> } };
  };
  const messages = copy.stateBag?.InMemoryChatHistoryProvider?.messages ?? [];
  for (const [index, message] of messages.entries())
    messages[index] = { ...message, role: message.role ?? "user", contents: message.contents ?? [] };
  return copy as Document;
}

function messagesOf(state: unknown): Array<Record<string, unknown>> {
  return (
    (state as { segments?: Array<{ messages: Array<Record<string, unknown>> }> }).segments?.[0]?.messages ??
    []
  );
}

describe("MAF .NET ChatClientAgentSession fixtures", () => {
  for (const test of [
    "VerifyDeserializeWithId",
    "VerifyDeserializeWithMessages",
    "VerifyDeserializeWithStateBag",
  ]) {
    it(`${test}: imports, and exports back as .NET reads it`, async () => {
      const document = fixtureJson(`dotnet/ChatClientAgentSessionTests.${test}.json`);
      const state = fromMafSession(document, { createdAt: IMPORT_TIME });
      expect(await toMafSession(state, { language: "dotnet" })).toEqual(withDotnetDefaults(document));
    });
  }

  it("VerifyDeserializeWithMessages: the message is a user message by testAuthor, as .NET reads it", () => {
    const state = fromMafSession(
      fixtureText("dotnet/ChatClientAgentSessionTests.VerifyDeserializeWithMessages.json"),
    );
    expect(messagesOf(state)).toEqual([
      expect.objectContaining({ role: "user", authorName: "testAuthor", contents: [] }),
    ]);
  });

  it("VerifyDeserializeWithId: a conversation id no skein type stands for is kept in metadata", () => {
    const state = fromMafSession(
      fixtureText("dotnet/ChatClientAgentSessionTests.VerifyDeserializeWithId.json"),
      {
        id: "t1",
      },
    );
    expect(state.metadata).toEqual({
      maf: {
        language: "dotnet",
        document: "session",
        historyKey: "InMemoryChatHistoryProvider",
        serviceSessionId: "TestConvId",
      },
    });
  });

  it("DeserializeWithInvalidJsonThrows: [42] is refused, as .NET throws ArgumentException", () => {
    expect(() =>
      fromMafSession(
        fixtureText("dotnet/ChatClientAgentSessionTests.DeserializeWithInvalidJsonThrows.json"),
        { id: "t" },
      ),
    ).toThrow(MafDocumentError);
  });
});

describe("skein's own .NET case: every AIContent type skein maps", () => {
  it("imports every content, in order, as skein types (or kept as maf.dotnet.<$type>)", () => {
    const state = fromMafSession(ownCase, { id: "t", createdAt: IMPORT_TIME });
    const messages = messagesOf(state);
    expect(
      messages.map((message) => (message.contents as Array<{ type: string }>).map((content) => content.type)),
    ).toEqual([
      ["text", "data", "uri", "file"],
      ["reasoning", "function_call", "maf.dotnet.mcpServerToolCall", "maf.hosted_vector_store", "usage"],
      ["function_result"],
      ["error"],
    ]);
    expect(messages[0]).toMatchObject({
      id: "m-user-1",
      createdAt: "2026-01-02T03:04:05.000Z",
      authorName: "alice",
    });
    expect(messages[1]?.contents).toContainEqual({
      type: "reasoning",
      text: "Call the tool.",
      maf: { protected_data: "enc==" },
    });
    // .NET keeps 7 digits of a second and an offset; skein's time is UTC milliseconds, the text .NET wrote is kept.
    expect(messages[2]).toMatchObject({
      createdAt: "2026-01-02T01:04:06.123Z",
      maf: { createdAt: "2026-01-02T03:04:06.1234567+02:00" },
    });
  });

  it(".NET → skein → .NET gives the session back", async () => {
    const state = fromMafSession(ownCase, { createdAt: IMPORT_TIME, id: "t" });
    expect(await toMafSession(state, { language: "dotnet" })).toEqual(ownCase);
  });

  it(".NET → skein → Python → skein → .NET keeps every message and content", async () => {
    const first = fromMafSession(ownCase, { createdAt: IMPORT_TIME, id: "t" });
    const python = await toMafSession(first, { language: "python" });
    const second = fromMafSession(python, { createdAt: IMPORT_TIME });
    expect(messagesOf(second)).toEqual(messagesOf(first));
    expect(await toMafSession(second, { language: "dotnet" })).toEqual(ownCase);
  });
});

describe("Python → skein → .NET → skein", () => {
  it("keeps every message and content of the 24-type session; .NET gets $type first and only $types it knows", async () => {
    const document = fixtureJson("python/a_session_in_memory.to_dict.json");
    const first = fromMafSession(document, { createdAt: IMPORT_TIME });
    const dotnet = await toMafSession(first, { language: "dotnet" });
    const bag = dotnet.stateBag as {
      InMemoryChatHistoryProvider: { messages: Array<{ contents: Document[] }> };
    };
    for (const message of bag.InMemoryChatHistoryProvider.messages)
      for (const content of message.contents) expect(Object.keys(content)[0]).toBe("$type");
    const second = fromMafSession(JSON.parse(JSON.stringify(dotnet)), {
      createdAt: IMPORT_TIME,
      id: first.id,
    });
    expect(messagesOf(second)).toEqual(messagesOf(first));
    // …and on to Python again: MAF's own document.
    expect(await toMafSession(second, { language: "python" })).toEqual(document);
  });
});

describe(".NET refusals", () => {
  const session = (content: unknown) => ({
    stateBag: { InMemoryChatHistoryProvider: { messages: [{ role: "user", contents: [content] }] } },
  });
  const path = ["stateBag", "InMemoryChatHistoryProvider", "messages", 0, "contents", 0];

  function refusal(document: unknown): MafDocumentError {
    try {
      fromMafSession(document, { id: "t" });
    } catch (error) {
      if (MafDocumentError.isInstance(error)) return error;
      throw error;
    }
    throw new Error("not refused");
  }

  it("$type after another property (System.Text.Json's default refuses it)", () => {
    expect(refusal(session({ text: "hi", $type: "text" })).path).toEqual([...path, "$type"]);
  });

  it("a $type AIContent does not declare", () => {
    expect(refusal(session({ $type: "hologram", text: "hi" })).message).toMatch(
      /unknown content \$type "hologram"/,
    );
  });

  it("a content with no $type", () => {
    expect(refusal(session({ text: "hi" })).path).toEqual(path);
  });

  it("a role skein has no name for", () => {
    const document = { stateBag: { InMemoryChatHistoryProvider: { messages: [{ role: "developer" }] } } };
    expect(refusal(document).path).toEqual([
      "stateBag",
      "InMemoryChatHistoryProvider",
      "messages",
      0,
      "role",
    ]);
  });
});
