import { describe, expect, it } from "vitest";
import { retentionSection, sweptOnce } from "../src/retention-rows.js";

describe("the retention rows (issue 40)", () => {
  it("count the records a sweep reads: the expired ones with the expiry index, every one without", async () => {
    const indexed = await sweptOnce(2_000, 20, false);
    expect([indexed.deleted, indexed.recordsRead]).toEqual([20, 20]);
    const scanned = await sweptOnce(2_000, 20, true);
    expect([scanned.deleted, scanned.recordsRead]).toEqual([20, 2_000]);
    const section = retentionSection({ date: "2026-12-06", command: "test", rows: [indexed, scanned] });
    expect(section).toContain("| memory | 2,000 | 20 |");
    expect(section).toContain("| memory, no expiry index (the fallback) | 2,000 | 20 |");
  });
});
