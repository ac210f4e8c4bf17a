import { occurrences, REPLY_MARKER, streamMarkedReplies } from "@skein/test-support/streamed-replies";
import { databaseUrl } from "@skein/test-support/test-postgres";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";
import { rowTexts, testSchemas } from "./test-sql.js";

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

describe("a streamed reply in a postgres store", () => {
  it("is stored once after it ends or fails: its batches' rows are deleted", async () => {
    const schema = schemas.schema("reply_storage");
    const store = postgresStore({ url: databaseUrl(), schema });
    const thread = await streamMarkedReplies(store);
    expect((await thread.messages()).map((message) => message.status)).toEqual([undefined, "interrupted"]);
    await store.close();
    const texts = (await rowTexts(schema)).map(({ text }) => text);
    // One copy per reply: its row in the thread's head segment.
    expect(occurrences(texts, REPLY_MARKER)).toBe(2);
  });
});
