import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { Message } from "../message.js";
import { LocalStore } from "./local-store.js";
import type { LogThread } from "./log-thread.js";

/** A memory driver that counts the messages read out of segments and the segments asked for. */
class CountingDriver extends MemoryLogDriver {
  messagesRead = 0;
  segmentsAsked = 0;
  override async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    const read = await super.readSegment(id, from, to);
    this.messagesRead += read.length;
    return read;
  }
  override async segment(id: string) {
    this.segmentsAsked++;
    return super.segment(id);
  }
}

async function chatOf(length: number) {
  const driver = new CountingDriver();
  const store = new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
  const thread = (await store.create()) as LogThread;
  const messages = Array.from({ length }, (_, index) => ({
    id: `m${String(index).padStart(6, "0")}`,
    role: index % 2 ? ("assistant" as const) : ("user" as const),
    text: `message ${index}`,
  }));
  for (let from = 0; from < length; from += 1000) await thread.append(messages.slice(from, from + 1000));
  return { driver, thread, messages };
}

/** The messages read by `work`, counted from a warm start (segment infos cached as after any earlier call). */
async function messagesReadBy(driver: CountingDriver, work: () => Promise<unknown>): Promise<number> {
  driver.messagesRead = 0;
  await work();
  return driver.messagesRead;
}

describe("chat branching cost", () => {
  it("edit, regenerate, switchTo and alternatives read the same few messages at 10 and at 10,000 messages", async () => {
    const reads = [];
    for (const length of [10, 10_000]) {
      const { driver, thread, messages } = await chatOf(length);
      const question = messages[length - 4] as { id: string };
      const answerId = (messages[length - 1] as { id: string }).id;
      reads.push([
        await messagesReadBy(driver, () =>
          thread.edit(question.id, { id: "edited", role: "user", text: "again" }),
        ),
        await messagesReadBy(driver, () => thread.alternatives("edited")),
        await messagesReadBy(driver, () => thread.switchTo(question.id)),
        await messagesReadBy(driver, () =>
          thread.regenerate(answerId, { id: "re", role: "assistant", text: "r" }),
        ),
      ]);
    }
    expect(reads[0]).toEqual(reads[1]);
    // One message each, or two where both versions are read.
    for (const count of reads[0] as number[]) expect(count).toBeLessThanOrEqual(2);
  });

  it("after 300 edits at one position, an edit reads what the first one did and alternatives one message per version", async () => {
    const { driver, thread } = await chatOf(6);
    const first = await messagesReadBy(driver, () =>
      thread.edit("m000004", { id: "v0", role: "user", text: "v0" }),
    );
    for (let index = 1; index < 300; index++) {
      await thread.edit(`v${index - 1}`, { id: `v${index}`, role: "user", text: `v${index}` });
    }
    const last = await messagesReadBy(driver, () =>
      thread.edit("v299", { id: "v300", role: "user", text: "v300" }),
    );
    expect(last).toBe(first);
    let versions: Awaited<ReturnType<LogThread["alternatives"]>> = [];
    // The current version is already read with the spot: the others are one read each.
    expect(await messagesReadBy(driver, async () => (versions = await thread.alternatives("v300")))).toBe(
      302,
    );
    expect(versions.map((version) => version.id)).toEqual([
      "m000004",
      ...Array.from({ length: 301 }, (_, index) => `v${index}`),
    ]);
    // Switching back and forth does not stack empty heads: the chain stays two segments deep.
    for (let round = 0; round < 50; round++) await thread.switchTo(round % 2 ? "v300" : "m000004");
    driver.segmentsAsked = 0;
    const fresh = (await new LocalStore({ driver, registry: createRegistry(), url: "memory:" }).get(
      thread.id,
    )) as LogThread;
    await fresh.messages();
    expect(driver.segmentsAsked).toBeLessThanOrEqual(3);
  });
});
