import { describe, expect, it } from "vitest";
import { benchmarksMarkdown } from "../src/report.js";

const measured = {
  date: "2026-12-05T23:00:00.000Z",
  machine: "2 × test CPU, 8 GiB",
  node: "v20",
  command: "npm run bench -- --only catalogue,branching",
};

describe("BENCHMARKS.md's catalogue and branching sections", () => {
  const markdown = benchmarksMarkdown({
    node: "v20",
    date: "2026-12-02",
    results: [],
    scaling: [],
    storage: [],
    runtime: [],
    catalogue: {
      measured,
      sizes: [
        { threads: 10, owned: 10 },
        { threads: 1000, owned: 1000 },
        { threads: 100_000, owned: 1000 },
      ],
      rows: [
        {
          store: "memory",
          operation: "list 20 newest of one owner",
          micros: [30, 80, 88],
          note: "index; 200 runs",
        },
        {
          store: "fs",
          operation: "list 20 newest of one owner",
          micros: [4000, 800_000, 80_000_000],
          note: "scan: before the index; 1 run",
        },
      ],
      ordering: [
        { store: "memory", operation: "append: no owner, then the owner's thread", micros: [10, 12] },
      ],
      fills: [{ store: "fs", threads: 100_000, seconds: 400 }],
    },
    branching: {
      measured,
      sizes: { small: 10, large: 100_000, edits: 1000 },
      rows: [
        { store: "memory", operation: "edit", micros: [200, 220, 250], note: "1221 versions" },
        { store: "memory", operation: "alternatives", micros: [15, 16, 90_000], note: "1441 versions" },
      ],
    },
  });

  it("say when, how and where the rows were measured", () => {
    expect(markdown).toContain(
      `Measured on ${measured.date} by \`${measured.command}\` on ${measured.machine}, Node v20.`,
    );
  });

  it("hold a list to 1.3 on the same page, and mark a scanning store's figures as before the index", () => {
    expect(markdown).toContain(
      "| memory list 20 newest of one owner: 100,000 / 1,000 threads ≤ 1.3 | 1.10× | met |",
    );
    expect(markdown).toContain(
      "| fs list 20 newest of one owner (scan: before the index): 100,000 / 1,000 threads ≤ 1.3 | 100.00× | missed |",
    );
    const note = markdown.split("\n").find((line) => line.startsWith("- **fs list")) ?? "";
    expect(note).toContain("fallback (scanCatalogue) reads every record");
    expect(markdown).toContain(
      "| memory append keeping the owner's order ≤ 1.1× one without (a thread with no owner) | 1.20× | missed |",
    );
  });

  it("hold edit to 1.3 at both sizes, and alternatives at the edited position to none", () => {
    expect(markdown).toContain("| memory edit: 100,000 / 10 messages ≤ 1.3 | 1.10× | met |");
    expect(markdown).toContain(
      "| memory edit: 1,000 edits at one position / 10 messages ≤ 1.3 | 1.25× | met |",
    );
    expect(markdown).toContain("| memory alternatives: 100,000 / 10 messages ≤ 1.3 | 1.07× | met |");
    expect(markdown).not.toContain("memory alternatives: 1,000 edits");
  });
});
