import { occurrences, REPLY_MARKER, streamMarkedReplies } from "@skein/test-support/streamed-replies";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { deleteKeys, keyTexts, singleUrl, uniquePrefix } from "./redis-nodes.js";

const prefix = uniquePrefix("reply-storage");
afterAll(() => deleteKeys(singleUrl(), prefix));

describe("a streamed reply in a redis store", () => {
  it("is stored once after it ends or fails: its batches' keys are deleted", async () => {
    const store = redisStore({ url: singleUrl(), prefix });
    const thread = await streamMarkedReplies(store);
    expect((await thread.messages()).map((message) => message.status)).toEqual([undefined, "interrupted"]);
    await store.close();
    const texts = (await keyTexts(prefix)).map(({ text }) => text);
    // One copy per reply, in the thread's head segment's messages.
    expect(occurrences(texts, REPLY_MARKER)).toBe(2);
  });
});
