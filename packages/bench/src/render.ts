import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { benchmarksMarkdown, type Figures } from "./report.js";

/**
 * `npm run bench:render`: writes BENCHMARKS.md again from bench-results.json, without measuring, so that a
 * change to the report's text (report.ts) reaches BENCHMARKS.md with the figures of the last full run.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const figures = JSON.parse(readFileSync(`${root}bench-results.json`, "utf8")) as Figures;
writeFileSync(`${root}BENCHMARKS.md`, benchmarksMarkdown(figures));
console.log(`wrote BENCHMARKS.md from bench-results.json (figures of ${figures.date})`);
