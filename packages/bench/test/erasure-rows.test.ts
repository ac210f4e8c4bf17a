import { describe, expect, it } from "vitest";
import { erasureRow, erasureTable } from "../src/erasure-scenario.js";
import { fsFactory, memoryFactory } from "../src/fresh-stores.js";

describe("the erasure rows (issue 40)", () => {
  it("erase an owner's threads on one store and delete them one by one on another, verified", async () => {
    for (const factory of [memoryFactory(1), fsFactory(1)]) {
      const row = await erasureRow(factory, 12, 2);
      expect(row).toMatchObject({ store: factory.name, threads: 12, runs: 2, verified: true });
      expect(row.ratio).toBeGreaterThan(0);
      const [headers, rows] = erasureTable([row]);
      expect(headers).toContain("ratio (target ≤ 3×)");
      expect(rows[0]?.[2]).toBe("2, warm");
      expect(rows[0]?.[6]).toBe("verified");
    }
  });
});
