import { describe, expect, it } from "vitest";
import { ENCRYPTION_OPERATIONS, encryptionRows } from "../src/encryption-scenario.js";
import { encryptionMarkdown, encryptionTable, encryptionTargets } from "../src/encryption-section.js";
import { memoryFactory } from "../src/fresh-stores.js";
import { chosenSections } from "../src/section-filter.js";

describe("the encryption rows (issue 41)", () => {
  it("time each operation encrypted and in clear, and hold fs and redis append and view to 1.3×", async () => {
    const rows = await encryptionRows(memoryFactory(1), 1, 20);
    // Memory has no second store on the same data, so it has no first-view row.
    expect(rows.map((row) => row.operation)).toEqual([
      ENCRYPTION_OPERATIONS.append,
      ENCRYPTION_OPERATIONS.view,
      ENCRYPTION_OPERATIONS.concurrent,
    ]);
    for (const row of rows) {
      expect(row.plainMicros).toBeGreaterThan(0);
      expect(row.encryptedMicros).toBeGreaterThan(0);
    }
    const figures = {
      measured: { date: "2026-12-06T00:00:00.000Z", machine: "test", node: "v20", command: "npm run bench" },
      sizes: { seeded: 200, perRound: 40, coldMessages: 25, concurrent: 20 },
      rounds: 1,
      warmup: 20,
      load: { before: "1.00, 1.00, 1.00", after: "1.00, 1.00, 1.00" },
      rows: [
        ...rows,
        { store: "redis", operation: ENCRYPTION_OPERATIONS.append, plainMicros: 100, encryptedMicros: 120 },
        {
          store: "redis",
          operation: ENCRYPTION_OPERATIONS.firstView,
          plainMicros: 100,
          encryptedMicros: 150,
        },
      ],
    };
    expect(encryptionTargets(figures)).toEqual([["encrypted redis append ≤ 1.3× in clear", 1.2, 1.3]]);
    const [, tableRows] = encryptionTable(figures);
    expect(tableRows.at(-1)).toEqual([
      "redis",
      ENCRYPTION_OPERATIONS.firstView,
      "100.0 µs",
      "150.0 µs",
      "1.50×",
      "reported",
    ]);
    const markdown = encryptionMarkdown(
      figures,
      () => "Measured.",
      (headers) => headers.join("|"),
    );
    expect(markdown).toContain("## Encryption at rest (issue 41)");
    expect(markdown).toContain("Load average 1.00, 1.00, 1.00");
    expect(markdown).toContain("Each side first runs 20 untimed appends and views");
    expect([...chosenSections(["--only", "encryption"])]).toEqual(["encryption"]);
  });
});
