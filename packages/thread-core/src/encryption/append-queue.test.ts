import { describe, expect, it } from "vitest";
import { AppendQueue } from "./append-queue.js";

describe("append queue", () => {
  it("runs one thread's work one at a time, in call order, past failures", async () => {
    const queue = new AppendQueue();
    const steps: string[] = [];
    const step =
      (name: string, fail = false) =>
      async () => {
        steps.push(`${name} start`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        steps.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run("t", step("a")),
      queue.run("t", step("b", true)),
      queue.run("t", step("c")),
    ]);
    expect(steps).toEqual(["a start", "a end", "b start", "b end", "c start", "c end"]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    // Once settled, a later call waits on nothing left behind and runs alone.
    expect(await queue.run("t", step("d"))).toBe("d");
  });

  it("does not make one thread's work wait for another's", async () => {
    const queue = new AppendQueue();
    let release: () => void = () => undefined;
    const held = queue.run("t", () => new Promise<void>((resolve) => (release = resolve)));
    expect(await queue.run("u", async () => "u")).toBe("u");
    release();
    await held;
  });
});
