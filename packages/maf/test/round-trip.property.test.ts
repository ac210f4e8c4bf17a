// Property tests: any JSON given as a MAF document gives a state or a SkeinError (never a crash), and any skein
// message goes to MAF Python or .NET and comes back equal.
import { SkeinError } from "@skein/thread-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromMafHistory, fromMafSession, toMafSession } from "../src/index.js";
import { IMPORT_TIME } from "./fixtures.js";

const key = fc
  .string({ minLength: 1, maxLength: 8 })
  .filter((text) => !["__proto__", "constructor"].includes(text));
const json = fc.jsonValue({ maxDepth: 3 });
/** JSON a skein thread holds: without the keys skein refuses (`InvalidThreadStateError`), at any depth. */
const heldJson = json.filter((value) => !/"(__proto__|constructor)":/.test(JSON.stringify(value)));

/** A MAF-looking document: sometimes a session with messages, sometimes anything. */
const hostile = fc.oneof(
  json,
  fc.record({
    type: fc.constantFrom("session", "thread"),
    session_id: fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), json),
    service_session_id: json,
    state: fc.oneof(
      json,
      fc.record({ in_memory: fc.record({ messages: fc.array(json, { maxLength: 3 }) }) }),
    ),
  }),
  fc.record({ stateBag: fc.dictionary(key, json, { maxKeys: 3 }), conversationId: json }),
);

const text = fc.string({ maxLength: 12 });
/** Skein contents of every kind a thread can hold, with fields skein does not know beside them. */
const content = fc.oneof(
  fc.record({ type: fc.constant("text"), text }),
  fc.record({ type: fc.constant("reasoning"), text }),
  fc.record({
    type: fc.constant("function_call"),
    callId: fc.string({ minLength: 1, maxLength: 6 }),
    name: fc.string({ minLength: 1, maxLength: 6 }),
    arguments: fc.oneof(fc.dictionary(key, heldJson, { maxKeys: 3 }), text),
  }),
  fc.record(
    {
      type: fc.constant("function_result"),
      callId: fc.string({ minLength: 1, maxLength: 6 }),
      result: heldJson,
      isError: fc.boolean(),
    },
    { requiredKeys: ["type", "callId", "result"] },
  ),
  fc.record({
    type: fc.constant("data"),
    mediaType: fc.constantFrom("image/png", "text/plain"),
    data: fc.base64String({ maxLength: 12 }),
  }),
  fc.record(
    {
      type: fc.constant("uri"),
      uri: fc.webUrl(),
      mediaType: fc.constantFrom("text/html", "application/pdf"),
    },
    { requiredKeys: ["type", "uri"] },
  ),
  fc.record(
    { type: fc.constant("file"), fileId: fc.string({ minLength: 1, maxLength: 6 }), name: text },
    { requiredKeys: ["type", "fileId"] },
  ),
  fc.record(
    { type: fc.constant("usage"), inputTokens: fc.nat(), outputTokens: fc.nat() },
    { requiredKeys: ["type"] },
  ),
  fc.record({ type: fc.constant("error"), message: text, code: text }, { requiredKeys: ["type", "message"] }),
  fc.record({ type: fc.constantFrom("source-url", "acme.widget"), url: text, extra: heldJson }),
);
const withExtra = content.chain((value) =>
  fc
    .option(fc.record({ providerData: heldJson }), { nil: undefined })
    .map((extra) => ({ ...value, ...extra })),
);
const messages = fc
  .array(
    fc.record(
      {
        role: fc.constantFrom("system", "user", "assistant", "tool"),
        authorName: text,
        contents: fc.array(withExtra, { maxLength: 4 }),
        metadata: fc.dictionary(
          key.filter((name) => name !== "skein"),
          heldJson,
          { maxKeys: 2 },
        ),
      },
      { requiredKeys: ["role", "contents"] },
    ),
    { maxLength: 4 },
  )
  .map((list) =>
    list.map((message, index) => ({ id: `m${index}`, createdAt: "2026-01-02T03:04:05.000Z", ...message })),
  );

function memoryState(list: unknown[]) {
  return {
    $type: "memory",
    $v: 1,
    id: "t",
    createdAt: IMPORT_TIME,
    metadata: {},
    context: {},
    revision: 1,
    end: { segment: "seg_1", offset: list.length },
    segments: [{ id: "seg_1", base: null, start: 0, createdAt: IMPORT_TIME, messages: list }],
    events: [],
  };
}

function messagesOf(state: unknown): unknown[] {
  return (state as { segments: Array<{ messages: unknown[] }> }).segments[0]?.messages ?? [];
}

/** What JSON keeps of a value: `undefined` fields are absent. */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe("hostile input", () => {
  it("any JSON as a session or a history line gives a state or a SkeinError", () => {
    fc.assert(
      fc.property(hostile, (document) => {
        for (const read of [
          () => fromMafSession(document, { createdAt: IMPORT_TIME, id: "t" }),
          () => fromMafHistory([JSON.stringify(document)], { sessionId: "t", createdAt: IMPORT_TIME }),
        ]) {
          try {
            read();
          } catch (error) {
            if (!SkeinError.isInstance(error)) throw error;
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("skein → MAF → skein", () => {
  for (const language of ["python", "dotnet"] as const) {
    it(`${language}: every message and content comes back equal`, async () => {
      await fc.assert(
        fc.asyncProperty(messages, async (list) => {
          const state = asJson(memoryState(list));
          const session = await toMafSession(state as never, { language });
          const back = fromMafSession(asJson(session), { createdAt: IMPORT_TIME, id: "t" });
          expect(messagesOf(back)).toEqual(messagesOf(state));
        }),
        { numRuns: 60 },
      );
    });
  }
});
