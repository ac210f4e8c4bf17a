import { describe, expect, it } from "vitest";
import {
  fromMafHistory,
  fromMafSession,
  MafFormatNotSupportedError,
  sessionIdFromHistoryFileName,
  toMafHistory,
} from "../src/index.js";
import { fixtureBytes, fixtureJson, fixtureText, IMPORT_TIME } from "./fixtures.js";

describe("MAF Python FileHistoryProvider (JSONL)", () => {
  it("sess_d_file_history.jsonl: 9 messages, written back byte for byte", async () => {
    const text = fixtureText("python/file_history/sess_d_file_history.jsonl");
    const state = fromMafHistory(text, { sessionId: "sess_d_file_history", createdAt: IMPORT_TIME });
    expect(state.id).toBe("sess_d_file_history");
    expect(
      (state as unknown as { segments: Array<{ messages: unknown[] }> }).segments[0]?.messages,
    ).toHaveLength(9);
    expect(await toMafHistory(state, { format: "jsonl" })).toBe(text);
  });

  it("holds the same messages as the session that wrote them", () => {
    const history = fromMafHistory(fixtureText("python/file_history/sess_d_file_history.jsonl"), {
      sessionId: "sess_a_in_memory",
      createdAt: IMPORT_TIME,
    });
    const session = fromMafSession(fixtureJson("python/a_session_in_memory.to_dict.json"), {
      createdAt: IMPORT_TIME,
    });
    const messagesOf = (state: unknown) =>
      (state as { segments: Array<{ messages: unknown[] }> }).segments[0]?.messages;
    expect(messagesOf(history)).toEqual(messagesOf(session));
  });

  it("file names: an unsafe id comes back from ~session-<base64>, a plain one is the stem, a hashed one is not known", () => {
    expect(sessionIdFromHistoryFileName("~session-dXNlci80Mjp3ZWlyZCBpZA.jsonl")).toBe("user/42:weird id");
    expect(sessionIdFromHistoryFileName("/tmp/histories/default.jsonl")).toBe("default");
    expect(sessionIdFromHistoryFileName("~session-sha256-00ff.jsonl")).toBeUndefined();
  });

  for (const file of ["~session-dXNlci80Mjp3ZWlyZCBpZA.jsonl", "default.jsonl"]) {
    it(`${file}: imports under the id its name gives, and writes back byte for byte`, async () => {
      const text = fixtureText(`python/file_history/${file}`);
      const sessionId = sessionIdFromHistoryFileName(file);
      const state = fromMafHistory(fixtureBytes(`python/file_history/${file}`), {
        sessionId,
        createdAt: IMPORT_TIME,
      });
      expect(state.id).toBe(sessionId);
      expect(await toMafHistory(state, { format: "jsonl" })).toBe(text);
    });
  }
});

describe("MAF Python RedisHistoryProvider lists", () => {
  it("redis_history.json: the LRANGE strings import, and are written back string for string (Python's json.dumps)", async () => {
    const record = fixtureJson("python/redis_history.json");
    const items = record["LRANGE 0 -1"] as string[];
    const sessionId = (record.key as string).slice("chat_messages:".length);
    const state = fromMafHistory(items, { sessionId, createdAt: IMPORT_TIME });
    expect(state.id).toBe("sess_e_redis");
    expect(await toMafHistory(state, { format: "redis" })).toEqual(items);
  });
});

describe("msgpack", () => {
  it("a FileSessionStore msgpack file is refused: convert with MAF to JSON", () => {
    const bytes = fixtureBytes("python/file_session_store_msgpack/sess_a_in_memory.msgpack");
    expect(() => fromMafSession(bytes)).toThrow(MafFormatNotSupportedError);
    expect(() => fromMafSession(bytes)).toThrow("msgpack is not supported, convert with MAF to JSON");
  });

  it("a FileHistoryProvider msgpack file is refused the same way", () => {
    const bytes = fixtureBytes("python/file_history/sess_d_file_history.msgpack");
    expect(() => fromMafHistory(bytes, { sessionId: "s" })).toThrow(
      "msgpack is not supported, convert with MAF to JSON",
    );
  });
});
