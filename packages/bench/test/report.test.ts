import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { benchmarksMarkdown } from "../src/report.js";

const require = createRequire(import.meta.url);

describe("BENCHMARKS.md", () => {
  it("names each peer's installed version, also for packages that do not export package.json", () => {
    const markdown = benchmarksMarkdown({
      node: "v20",
      date: "2026-12-01",
      results: [],
      scaling: [],
      storage: [],
      runtime: [],
    });
    const peers = markdown.split("\n").find((line) => line.startsWith("- Peers:")) ?? "";
    // @openai/agents-core's `exports` has no ./package.json: read here by path, as the bench has it installed.
    const manifest = require.resolve("@openai/agents-core").replace(/dist\/index\.js$/, "package.json");
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
    expect(peers).toContain(`@openai/agents-core ${version}`);
    expect(peers).not.toContain("not installed");
  });

  it("explains a missed fs rollback target with this run's cost of creating a file", () => {
    const scenario = "fs commit";
    const metric = "history operation (in turns)";
    const markdown = benchmarksMarkdown({
      node: "v20",
      date: "2026-12-02",
      results: [
        { scenario, metric, subject: "skein fs append", micros: 1000 },
        { scenario, metric, subject: "skein fs fork", micros: 2500 },
        { scenario, metric, subject: "skein fs checkpoint", micros: 2000 },
        { scenario, metric, subject: "skein fs rollback", micros: 4000 },
        {
          scenario,
          metric: "the file system beside them (in turns)",
          subject: "create an empty file (writeFileSync)",
          micros: 231.2,
        },
      ],
      scaling: [],
      storage: [],
      runtime: [],
    });
    expect(markdown).toContain("| fs fork ≤ 3× an fs append (in turns) | 2.50× | met |");
    const note = markdown.split("\n").find((line) => line.startsWith("- **fs rollback")) ?? "";
    expect(note).toContain("(4.00×)");
    expect(note).toContain("'create an empty file' row: 231.2 µs");
    expect(note).not.toContain("{file created}");
  });
});
