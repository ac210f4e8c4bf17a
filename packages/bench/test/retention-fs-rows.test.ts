import { describe, expect, it } from "vitest";
import { fsSweeps } from "../src/retention-fs-rows.js";

describe("the fs retention rows (issue 40)", () => {
  it("count the records each fs sweep reads: the expired ones with the expiry index, every one without", async () => {
    const rows = await fsSweeps(400, [
      { expired: 4, scan: false },
      { expired: 40, scan: false },
      { expired: 4, scan: true },
    ]);
    expect(rows.map((row) => [row.store, row.threads, row.expired, row.deleted, row.recordsRead])).toEqual([
      ["fs", 400, 4, 4, 4],
      ["fs", 400, 40, 40, 40],
      ["fs, no expiry index (the fallback)", 400, 4, 4, 400],
    ]);
  });
});
