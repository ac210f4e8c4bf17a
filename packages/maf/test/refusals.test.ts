import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import {
  fromMafHistory,
  fromMafSession,
  MafDocumentError,
  toMafHistory,
  toMafSession,
} from "../src/index.js";
import { fixtureJson, fixtureText, IMPORT_TIME } from "./fixtures.js";

interface Outcome {
  reader: string;
  outcome: "raised" | "accepted";
  message?: string;
  returned_to_dict?: unknown;
}

const outcomes = fixtureJson("python/invalid/errors.json") as unknown as Record<string, Outcome>;

/** Reads an invalid-document fixture as its MAF reader did: a message, a session, a store file or a JSONL file. */
function read(file: string, reader: string) {
  const text = fixtureText(file);
  if (reader === "Message.from_dict")
    return fromMafHistory([text], { sessionId: "s1", createdAt: IMPORT_TIME });
  if (reader === "FileHistoryProvider.get_messages")
    return fromMafHistory(text, { sessionId: "s1", createdAt: IMPORT_TIME });
  return fromMafSession(text, { createdAt: IMPORT_TIME });
}

/** Where skein says each refused document goes wrong (MAF's own messages name no path). */
const expectedPaths: Record<string, { document: string; path: Array<string | number> }> = {
  "python/invalid/message_unknown_key.json": { document: "MAF Redis history item 0", path: ["foo"] },
  "python/invalid/message_wrong_type_tag.json": { document: "MAF Redis history item 0", path: ["type"] },
  "python/invalid/message_missing_role.json": { document: "MAF Redis history item 0", path: ["role"] },
  "python/invalid/content_unknown_key.json": {
    document: "MAF Redis history item 0",
    path: ["contents", 0, "foo"],
  },
  "python/invalid/content_without_type.json": { document: "MAF Redis history item 0", path: ["contents", 0] },
  "python/invalid/content_data_with_data_field.json": {
    document: "MAF Redis history item 0",
    path: ["contents", 0, "data"],
  },
  "python/invalid/session_message_unknown_key.json": {
    document: "MAF Python session",
    path: ["state", "in_memory", "messages", 0, "foo"],
  },
  "python/invalid/session_missing_session_id.json": { document: "MAF Python session", path: ["session_id"] },
  "python/invalid/store_snapshot_wrong_type_tag.json": { document: "MAF Python session", path: ["type"] },
  "python/invalid/store_snapshot_bad_version.json": { document: "MAF Python session", path: ["version"] },
  "python/invalid/store_snapshot_missing_service_session_id.json": {
    document: "MAF Python session",
    path: ["service_session_id"],
  },
  "python/invalid/store_snapshot_state_not_object.json": { document: "MAF Python session", path: ["state"] },
  "python/invalid/store_snapshot_message_unknown_key.json": {
    document: "MAF Python session",
    path: ["state", "in_memory", "messages", 0, "foo"],
  },
  "python/invalid/jsonl_message_unknown_key.jsonl": { document: "MAF history line 2", path: ["foo"] },
  "python/invalid/jsonl_content_without_type.jsonl": {
    document: "MAF history line 1",
    path: ["contents", 0],
  },
  "python/invalid/jsonl_not_json.jsonl": { document: "MAF history line 2", path: [] },
  "python/invalid/jsonl_not_object.jsonl": { document: "MAF history line 1", path: [] },
};

describe("documents MAF's readers refuse are refused, with the JSON path", () => {
  const refused = Object.entries(outcomes).filter(([, outcome]) => outcome.outcome === "raised");
  it("covers every refusal the fixtures record", () => {
    expect(refused.map(([file]) => file).sort()).toEqual(Object.keys(expectedPaths).sort());
  });
  for (const [file, outcome] of refused) {
    it(`${file}: ${outcome.message}`, () => {
      let thrown: unknown;
      try {
        read(file, outcome.reader);
      } catch (error) {
        thrown = error;
      }
      expect(MafDocumentError.isInstance(thrown)).toBe(true);
      const error = thrown as MafDocumentError;
      expect({ document: error.document, path: error.path }).toEqual(expectedPaths[file]);
      expect(error.message).toMatch(/^\[maf\] /);
    });
  }
});

describe("documents MAF's readers accept are accepted, and written back as MAF wrote them back", () => {
  const accepted = Object.entries(outcomes).filter(([, outcome]) => outcome.outcome === "accepted");
  for (const [file, outcome] of accepted) {
    it(file, async () => {
      const state = read(file, outcome.reader);
      if (outcome.reader === "Message.from_dict") {
        const [line] = await toMafHistory(state, { format: "redis" });
        expect(JSON.parse(line as string)).toEqual(outcome.returned_to_dict);
      } else if (outcome.reader === "FileHistoryProvider.get_messages") {
        const text = await toMafHistory(state, { format: "jsonl" });
        expect(
          text
            .trimEnd()
            .split("\n")
            .map((line) => JSON.parse(line)),
        ).toEqual(outcome.returned_to_dict);
      } else {
        const written = await toMafSession(state, { language: "python", pythonDocument: "to_dict" });
        // A message in session state without its `type` tag stays a plain dict in MAF; skein reads it as the
        // message it is and writes it back tagged (README: what changes).
        if (file.endsWith("session_message_without_type_tag.json")) {
          const messages = (written.state as { in_memory: { messages: Array<Record<string, unknown>> } })
            .in_memory.messages;
          expect(messages.map((message) => message.type)).toEqual(["message"]);
          for (const message of messages) delete message.type;
        }
        expect(written).toEqual(outcome.returned_to_dict);
      }
    });
  }
});

describe("refusals skein adds", () => {
  const message = (fields: Record<string, unknown>) =>
    JSON.stringify({ type: "message", role: "user", contents: [{ type: "text", text: "hi" }], ...fields });

  it("a document that is neither a MAF Python nor a MAF .NET session", () => {
    expect(() => fromMafSession({ hello: 1 })).toThrow(MafDocumentError);
    expect(() => fromMafSession("[1]")).toThrow(/neither a MAF Python session nor a MAF .NET session/);
    expect(() => fromMafSession("{not json")).toThrow(/is not JSON/);
  });

  it("a role skein has no name for, with its path", () => {
    expect(() => fromMafHistory([message({ role: "developer" })], { sessionId: "s" })).toThrow(
      '[maf] MAF Redis history item 0 at $.role: role "developer" has no skein equivalent (system, user, assistant, tool)',
    );
  });

  it("a message id used twice (skein ids are unique in a thread), naming the second", () => {
    const lines = [message({ message_id: "m1" }), message({ message_id: "m1" })].join("\n");
    expect(() => fromMafHistory(lines, { sessionId: "s" })).toThrow(
      /message id "m1" is also the id of message 1/,
    );
  });

  it("a history without a session id and no id given", () => {
    expect(() => fromMafHistory([message({})])).toThrow(/names no session/);
  });

  it("a session id that cannot be a skein id", () => {
    expect(() => fromMafSession({ type: "session", session_id: "bad\u0000id", state: {} })).toThrow(
      /cannot be a skein thread id/,
    );
  });

  it("nothing half imported: a bad last line leaves the store without the thread", async () => {
    const store = await openStore("memory:");
    try {
      const lines = [message({ message_id: "m1" }), message({ foo: 1 })].join("\n");
      await expect(async () => store.import(fromMafHistory(lines, { sessionId: "half" }))).rejects.toThrow(
        MafDocumentError,
      );
      expect((await store.list()).items).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe("the error's family", () => {
  it("a MafDocumentError is an InvalidThreadStateError to isInstance (what skein's tools treat as invalid data)", async () => {
    const { InvalidThreadStateError } = await import("@skein/thread-core");
    let thrown: unknown;
    try {
      fromMafSession({ hello: 1 });
    } catch (error) {
      thrown = error;
    }
    expect(InvalidThreadStateError.isInstance(thrown)).toBe(true);
  });
});
