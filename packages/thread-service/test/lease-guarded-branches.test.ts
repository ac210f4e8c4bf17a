import { type LocalThread, openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { leaseGuarded } from "../src/lease-guarded-thread.js";

describe("a leased run's inner thread", () => {
  it("offers no edit, regenerate or switchTo its fence does not make: a run cannot move the thread unfenced", async () => {
    const store = await openStore("memory:");
    const thread = (await store.create()) as LocalThread;
    await thread.append([
      { id: "q", role: "user", text: "q" },
      { id: "a", role: "assistant", text: "a" },
    ]);
    // A fence with the writes of the Thread contract's required methods only, as FencedThread has them.
    const fence = { append: (...args: unknown[]) => args } as unknown as LocalThread;
    const guarded = leaseGuarded(
      thread,
      fence,
      () => {},
      (sub) => sub,
    ) as LocalThread;
    expect(guarded.edit).toBeUndefined();
    expect(guarded.regenerate).toBeUndefined();
    expect(guarded.switchTo).toBeUndefined();
    // Reads still reach the thread.
    expect((await guarded.alternatives("a")).map((version) => version.id)).toEqual(["a"]);
    expect(thread.revision).toBe(1);
    await store.close();
  });
});
