import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { occurrences, REPLY_MARKER, streamMarkedReplies } from "@skein/test-support/streamed-replies";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";

/** The text of every file under `directory`. */
async function fileTexts(directory: string): Promise<string[]> {
  const texts: string[] = [];
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) texts.push(await readFile(join(entry.parentPath, entry.name), "utf8"));
  }
  return texts;
}

describe("a streamed reply in an fs store", () => {
  it("is stored once after it ends or fails: its batches' segment is reclaimed", async () => {
    const directory = await temporaryDirectory("fs-reply-storage");
    const store = await openStore(`file://${directory}`);
    const thread = await streamMarkedReplies(store);
    expect((await thread.messages()).map((message) => message.status)).toEqual([undefined, "interrupted"]);
    await store.close();
    // One copy per reply: the message in the thread's head segment, nothing in trash/ or anywhere else.
    expect(occurrences(await fileTexts(directory), REPLY_MARKER)).toBe(2);
  });
});
