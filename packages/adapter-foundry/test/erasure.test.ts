import type { ThreadState } from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

describe("store.erase with Foundry threads", () => {
  test("deletes the owner's conversations and classic threads on the service, and keeps another owner's", async () => {
    const store = await fixture.store();
    const own = async (type: string, options: Record<string, unknown>, owner: string) => {
      const thread = await store.create(type, options);
      await thread.append({ role: "user", text: "my address is 1 Erasure Street" });
      await store.save({ ...(await store.getState(thread.id)), owner } as ThreadState);
      return thread.toJSON();
    };
    const conversation = await own("foundry.conversation", { agentName: "echo" }, "alice");
    const classic = await own("foundry.thread", { agentId: "asst_echo" }, "alice");
    const other = await own("foundry.conversation", { agentName: "echo" }, "bob");
    const conversations = fixture.emulator.conversations.conversations;
    expect(conversations.has(conversation.conversationId as string)).toBe(true);
    expect(fixture.emulator.agents.threads.has(classic.threadId as string)).toBe(true);

    const report = await store.erase({ owner: "alice" });
    expect(report.threads).toBe(2);
    expect(report.remote.map((entry) => [entry.type, entry.deleted]).sort()).toEqual([
      ["foundry.conversation", true],
      ["foundry.thread", true],
    ]);
    expect(conversations.has(conversation.conversationId as string)).toBe(false);
    expect(fixture.emulator.agents.threads.has(classic.threadId as string)).toBe(false);
    expect(conversations.has(other.conversationId as string)).toBe(true);
    expect((await store.list()).items.map((item) => item.id)).toEqual([other.id]);
    expect(await store.erase({ owner: "alice" })).toMatchObject({ threads: 0, remote: [] });
    await store.close();
  });
});
