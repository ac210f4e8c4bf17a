import { AssertionError } from "node:assert";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, expect as vitestExpect } from "vitest";
import { expect } from "./expect.js";

/** What `body` threw, or undefined. */
function thrown(body: () => void): unknown {
  try {
    body();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("the suites' own expect", () => {
  it("passes what vitest's passes and fails, with an AssertionError, what it fails", () => {
    const cases: Array<[string, () => void, boolean]> = [
      ["toEqual ignores undefined properties", () => expect({ a: 1, b: undefined }).toEqual({ a: 1 }), true],
      [
        "toEqual compares nested values",
        () => expect({ a: [1, { b: 2 }] }).toEqual({ a: [1, { b: 3 }] }),
        false,
      ],
      ["toEqual wants equal lengths", () => expect([1, 2]).toEqual([1]), false],
      [
        "toEqual takes asymmetric matchers",
        () => expect({ id: "x" }).toEqual({ id: expect.any(String) }),
        true,
      ],
      ["toBe is Object.is", () => expect({}).toBe({}), false],
      ["not.toBe", () => expect(1).not.toBe(2), true],
      [
        "toMatchObject takes a subset",
        () => expect({ a: 1, b: { c: 2, d: 3 } }).toMatchObject({ b: { c: 2 } }),
        true,
      ],
      ["toMatchObject refuses a different value", () => expect({ a: 1 }).toMatchObject({ a: 2 }), false],
      ["toContain on strings", () => expect("abc").toContain("b"), true],
      ["not.toContain on arrays", () => expect([1, 2]).not.toContain(2), false],
      ["toHaveLength", () => expect([1, 2]).toHaveLength(3), false],
      ["toBeInstanceOf", () => expect(new RangeError("x")).toBeInstanceOf(TypeError), false],
      ["toThrow with a class", () => expect(() => JSON.parse("{")).toThrow(SyntaxError), true],
      ["toThrow when nothing throws", () => expect(() => undefined).toThrow(), false],
      ["not.toHaveProperty", () => expect({ append: 1 }).not.toHaveProperty("append"), false],
      ["arrayContaining", () => expect([3, 1, 2]).toEqual(expect.arrayContaining([1, 3])), true],
      [
        "objectContaining",
        () => expect([{ id: "m1", x: 1 }]).toEqual([expect.objectContaining({ id: "m2" })]),
        false,
      ],
      [
        "stringContaining",
        () => expect({ r: "not installed" }).toEqual({ r: expect.stringContaining("install") }),
        true,
      ],
    ];
    for (const [name, body, passes] of cases) {
      const error = thrown(body);
      vitestExpect(error === undefined, name).toBe(passes);
      if (!passes) vitestExpect(error, name).toBeInstanceOf(AssertionError);
    }
  });

  it("rejects: applies the matcher to the rejection, and fails on a promise that resolves", async () => {
    await expect(Promise.reject(new Error("non-empty strings only"))).rejects.toThrow(/non-empty/);
    await expect(Promise.reject(new RangeError("x"))).rejects.toSatisfy(
      (error) => error instanceof RangeError,
    );
    const resolved = await expect(Promise.resolve(1))
      .rejects.toThrow()
      .catch((error: unknown) => error);
    vitestExpect(resolved).toBeInstanceOf(AssertionError);
  });

  it("puts the note first in the message", () => {
    const error = thrown(() => expect(1, "the count").toBe(2)) as Error;
    vitestExpect(error.message).toMatch(/^the count: expected 1 to be 2/);
  });
});

describe("@skein/thread-core/testing", () => {
  it("imports no test runner: the runner's functions are passed in", async () => {
    const directory = new URL(".", import.meta.url).pathname;
    const files = (await readdir(directory, { recursive: true })).filter(
      (file) => file.endsWith(".ts") && !file.endsWith(".test.ts"),
    );
    vitestExpect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = await readFile(join(directory, file), "utf8");
      vitestExpect(text, file).not.toMatch(/from "(vitest|jest|mocha|@jest\/globals)"/);
    }
  });
});
