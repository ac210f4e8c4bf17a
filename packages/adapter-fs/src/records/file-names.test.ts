import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeName, encodeName, isHashedName, MAX_NAME_LENGTH } from "./file-names.js";

const SAFE_NAME = /^[a-z0-9_%=-]+$/;

describe("encodeName", () => {
  it("keeps lowercase words and escapes everything else, uppercase included", () => {
    expect(encodeName("support-42_a")).toBe("support-42_a");
    expect(encodeName("Abc")).toBe("%41bc");
    expect(encodeName("abc")).not.toBe(encodeName("ABC"));
    expect(encodeName("../x")).toBe("%2e%2e%2fx");
    expect(encodeName(".")).toBe("%2e");
    expect(encodeName("C:\\x")).toBe("%43%3a%5cx");
    expect(encodeName("ü")).toBe("%c3%bc");
  });

  it("never gives a Windows device name", () => {
    for (const id of ["con", "prn", "aux", "nul", "com1", "lpt9"]) {
      expect(encodeName(id)).not.toBe(id);
      expect(decodeName(encodeName(id))).toBe(id);
    }
    expect(encodeName("console")).toBe("console");
  });

  it("hashes names that would be too long, and ids with lone surrogates", () => {
    const long = encodeName("🧵".repeat(256));
    expect(long.length).toBeLessThanOrEqual(MAX_NAME_LENGTH);
    expect(isHashedName(long)).toBe(true);
    expect(decodeName(long)).toBeUndefined();
    expect(encodeName("a\ud800")).not.toBe(encodeName("a\udbff"));
    expect(isHashedName(encodeName("a\ud800"))).toBe(true);
  });

  it("is injective, reversible and safe for any string", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 300 }),
        fc.string({ minLength: 1, maxLength: 300 }),
        (a, b) => {
          for (const id of [a, b]) {
            const name = encodeName(id);
            expect(name).toMatch(SAFE_NAME);
            expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_NAME_LENGTH);
            if (!isHashedName(name)) expect(decodeName(name)).toBe(id);
          }
          if (a !== b) expect(encodeName(a)).not.toBe(encodeName(b));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("ignores names it did not make", () => {
    for (const name of ["ABC", "a.b", "%zz", "%41%42%", "%61", ".tmp"])
      expect(decodeName(name)).toBeUndefined();
  });
});
