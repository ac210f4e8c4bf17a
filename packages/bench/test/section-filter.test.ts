import { describe, expect, it } from "vitest";
import type { Figures } from "../src/report.js";
import { chosenSections, mergedFigures, SECTIONS } from "../src/section-filter.js";

const figures = (date: string, scaling: string[][]): Figures => ({
  node: "v20",
  date,
  results: [{ scenario: "parse", subject: "JSON.parse", metric: "10,000 messages", micros: 1 }],
  scaling,
  storage: [],
  runtime: [],
});

describe("--only", () => {
  it("run every section without it, and the ones named with it, either spelling", () => {
    expect([...chosenSections(["--quick"])]).toEqual([...SECTIONS]);
    expect([...chosenSections(["--only", "catalogue,branching"])]).toEqual(["catalogue", "branching"]);
    expect([...chosenSections(["--only=catalogue", "--quick"])]).toEqual(["catalogue"]);
  });

  it("refuse a name it does not know, or none, listing the sections", () => {
    expect(() => chosenSections(["--only", "catalog"])).toThrow("(not catalog)");
    expect(() => chosenSections(["--only"])).toThrow("of: speed, scaling");
  });

  it("keep the other sections' figures of the last run and note when a section was measured again", () => {
    const earlier = figures("2026-12-02", [["memory", "append", "1 µs", "1 µs", "1.00×"]]);
    const fresh = figures("2026-12-05", [["memory", "append", "2 µs", "2 µs", "1.00×"]]);
    const merged = mergedFigures(
      earlier,
      fresh,
      new Set(["scaling"] as const),
      "npm run bench -- --only scaling",
    );
    expect(merged.date).toBe("2026-12-02");
    expect(merged.results).toEqual(earlier.results);
    expect(merged.scaling).toEqual(fresh.scaling);
    expect(merged.remeasured).toEqual({ scaling: "2026-12-05 (npm run bench -- --only scaling)" });
    expect(mergedFigures(earlier, fresh, new Set(SECTIONS), "npm run bench")).toBe(fresh);
  });
});
