import { type Message, UnsupportedOperationError } from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

const texts = (messages: Message[]) =>
  messages.map((message) => (message.contents[0] as { text?: string }).text);

describe("ifRevision on fork and delete (issue 18)", () => {
  test("foundry.conversation has no revisions: fork and delete refuse ifRevision before any request", async () => {
    const store = await fixture.store();
    const thread = await store.create("foundry.conversation", { agentName: "echo" });
    await thread.append([
      { role: "user", text: "one" },
      { role: "assistant", text: "two" },
    ]);
    const conversations = fixture.emulator.conversations.conversations.size;
    for (const attempt of [thread.fork({ ifRevision: 0 }), thread.delete({ ifRevision: 0 })]) {
      const error = await attempt.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(UnsupportedOperationError.isInstance(error)).toBe(true);
      expect((error as UnsupportedOperationError).capability).toBe("revisions");
      expect((error as Error).message).toMatch(/^\[adapter-foundry\] /);
    }
    expect(fixture.emulator.conversations.conversations.size).toBe(conversations);
    expect(texts(await (await store.get(thread.id)).messages())).toEqual(["one", "two"]);
  });
});
