import { describe, expect, it, vi } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import { MemoryLogDriver } from "./memory-log-driver.js";

/** How many objects one checkpoint checks for freezing, on a thread with `earlier` checkpoints. */
async function freezeChecksAfter(earlier: number): Promise<number> {
  const store = new LocalStore({ driver: new MemoryLogDriver(), registry: createRegistry(), url: "memory:" });
  const thread = await store.create();
  await thread.append({ role: "user", text: "hello" });
  for (let index = 0; index < earlier; index++) await thread.checkpoint();
  const isFrozen = vi.spyOn(Object, "isFrozen");
  try {
    await thread.checkpoint();
    return isFrozen.mock.calls.length;
  } finally {
    isFrozen.mockRestore();
  }
}

describe("memory driver: recording an event", () => {
  it("freezes the new event only, not the history before it", async () => {
    // The stored events are frozen and shared between records: a commit that froze (or checked) every one
    // of them again would cost O(history) per checkpoint, rollback, edit or switchTo.
    const one = await freezeChecksAfter(1);
    expect(await freezeChecksAfter(300)).toBe(one);
  });
});
