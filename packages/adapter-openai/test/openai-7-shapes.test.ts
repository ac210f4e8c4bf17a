// What openai 7 added, through the loopback emulator and the real client: on Node 20 the client is openai 6, on
// Node 24 (`npm test`'s second pass) openai 7, and the service sends the same shapes to both.
import { SkeinError } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiRunner } from "../src/index.js";
import { caught, type Harness, startHarness } from "./harness.js";

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

describe("openai 7 shapes", () => {
  it("keeps a configuration_update item of a conversation as a system message and copies it unchanged", async () => {
    const thread = await harness.store.create("openai.conversation");
    const update = { id: "cu_1", type: "configuration_update", reasoning: { effort: "low" } };
    harness.emulator.state.conversation(thread.toJSON().conversationId as string).items.push(update);
    const [message] = await thread.messages();
    expect(message).toMatchObject({ role: "system", contents: [{ type: "openai.item", item: update }] });
    const copy = await harness.store.create("openai.conversation");
    await copy.append({ role: "system", contents: message?.contents ?? [] });
    const copied = harness.emulator.state.conversation(copy.toJSON().conversationId as string).items;
    expect(copied).toEqual([update]);
  });

  it("sends conversationTtl as the conversation's ttl; a value the service refuses is a typed error", async () => {
    await harness.store.create("openai.conversation", { conversationTtl: "30m" });
    expect(harness.emulator.requestsTo("conversations.create")[0]?.body).toEqual({ ttl: "30m" });
    const refused = await caught(
      harness.store.create("openai.conversation", { conversationTtl: "1d" as "30m" }),
    );
    expect(SkeinError.isInstance(refused)).toBe(true);
    expect(refused.message).toMatch(/^\[adapter-openai\]/);
  });

  it("ignores a stream event the adapter does not know (response.compaction.compacting)", async () => {
    const thread = await harness.store.create();
    await thread.append({ role: "user", text: "hello" });
    const runner = openaiRunner({ client: harness.client, model: "gpt-test" });
    const appended = await runner.run(thread, {
      config: { parameters: { context_management: [{ type: "compaction", compact_threshold: 1000 }] } },
    });
    expect(harness.emulator.requestsTo("responses.create")[0]?.body).toMatchObject({
      stream: true,
      context_management: [{ type: "compaction", compact_threshold: 1000 }],
    });
    expect(appended.at(-1)?.role).toBe("assistant");
    expect(await thread.messages()).toHaveLength(2);
  });
});
