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
});
