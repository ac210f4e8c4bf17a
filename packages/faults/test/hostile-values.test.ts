import fc from "fast-check";
import { expect, it } from "vitest";
import { hostileJsonValues } from "./support/hostile-values.js";

// The generators' documents are mutated in place and put into one another: a container handed out twice
// (by two samples, or two mutations of one document) can end inside itself, and then JSON.stringify throws
// in the generator instead of the system under test getting a hostile file.
it("hands out a fresh object or array with every sample of a hostile JSON value", () => {
  const seen = new Set<object>();
  for (const [, value] of fc.sample(hostileJsonValues(200), { seed: 1, numRuns: 2_000 })) {
    if (typeof value !== "object" || value === null) continue;
    expect(seen.has(value)).toBe(false);
    seen.add(value);
  }
});
