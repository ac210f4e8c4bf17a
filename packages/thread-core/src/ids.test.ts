import { describe, expect, it } from "vitest";
import { newSortableId } from "./ids.js";

describe("newSortableId", () => {
  it("sorts in creation order within one millisecond and across many, with no id made twice", () => {
    const made: string[] = [];
    // 2,000 milliseconds of 3 ids each: more random digits than one draw from the pool holds.
    for (let millisecond = 0; millisecond < 2000; millisecond++) {
      for (let count = 0; count < 3; count++) made.push(newSortableId(1_800_000_000_000 + millisecond));
    }
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
    for (const id of made) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it("draws new random digits for each new millisecond", () => {
    const first = newSortableId(1_900_000_000_000);
    const second = newSortableId(1_900_000_000_001);
    // The random parts of two milliseconds are independent draws, not a count from the first.
    const differing = [...first.slice(10)].filter((digit, index) => digit !== second.slice(10)[index]);
    expect(differing.length).toBeGreaterThan(4);
  });
});
