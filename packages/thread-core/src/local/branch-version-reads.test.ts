import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { Message } from "../message.js";
import { LocalStore } from "./local-store.js";
import type { LogThread } from "./log-thread.js";

/** A memory driver that counts the driver calls a branch operation makes. */
class CallCountingDriver extends MemoryLogDriver {
  calls = { readSegment: 0, segment: 0, locate: 0 };
  override async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    this.calls.readSegment++;
    return super.readSegment(id, from, to);
  }
  override async segment(id: string) {
    this.calls.segment++;
    return super.segment(id);
  }
  override async locate(segmentId: string, messageId: string, count: number) {
    this.calls.locate++;
    return super.locate(segmentId, messageId, count);
  }
}

/** The driver calls of edit, regenerate and switchTo on the last answer of a chat whose answer has `versions` versions. */
async function callsAt(versions: number) {
  const driver = new CallCountingDriver();
  const store = new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
  const thread = (await store.create()) as LogThread;
  await thread.append(
    Array.from({ length: 6 }, (_, index) => ({
      id: `m${index}`,
      role: index % 2 ? ("assistant" as const) : ("user" as const),
      text: `message ${index}`,
    })),
  );
  let current = "m5";
  for (let index = 1; index < versions; index++) {
    current = (await thread.edit(current, { id: `v${index}`, role: "assistant", text: `v${index}` })).id;
  }
  const counted = async (work: () => Promise<unknown>) => {
    driver.calls = { readSegment: 0, segment: 0, locate: 0 };
    await work();
    return driver.calls;
  };
  const previous = current;
  return {
    edit: await counted(() => thread.edit(current, { id: "edited", role: "assistant", text: "e" })),
    regenerate: await counted(() =>
      thread.regenerate("edited", { id: "again", role: "assistant", text: "r" }),
    ),
    switchTo: await counted(() => thread.switchTo(previous)),
  };
}

describe("branch operations at a position with many versions", () => {
  it("edit, regenerate and switchTo make the same driver calls after 1 and after 300 earlier edits", async () => {
    // Both answers sit in a head segment of their own (an edit made them): chains of the same shape.
    const one = await callsAt(2);
    const many = await callsAt(301);
    expect(many).toEqual(one);
  });
});
