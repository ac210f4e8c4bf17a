// Finds the TypeScript and JavaScript blocks of every README (the root's and each package's), as found on disk
// when the test runs, so a package added later is covered without editing this file.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * How a block is checked, said by an HTML comment right before it:
 * - none (or another comment, such as `<!-- example: … -->`): a whole program, type-checked and run;
 * - `<!-- fragment: what it stands in` … `-->`: part of a program, type-checked only; the comment's lines after
 *   the first are TypeScript that declares what the fragment uses without showing it
 *   (`declare const service: ThreadService;`);
 * - `<!-- not run: <reason> -->`: a whole program, type-checked but not run, because it needs what a test
 *   cannot have (a hosted service, an account).
 */
export type BlockKind = "program" | "fragment" | "not run";

export interface ReadmeBlock {
  /** `packages/adapter-fs/README.md`, from the repository's root. */
  readme: string;
  /** The line of the block's first line of code (1-based). */
  line: number;
  language: "ts" | "js";
  kind: BlockKind;
  /** A fragment's declarations, or why a block is not run. */
  note: string;
  code: string;
}

const FENCE = /^```(ts|typescript|tsx|js|javascript|mjs)\s*$/;

/** The root README and every packages/<name>/README.md. */
export function readmeFiles(): string[] {
  const packages = join(repositoryRoot, "packages");
  // A private package's README (test support, the bench) is not what a user meets: its blocks may name test tools.
  const files = readdirSync(packages)
    .filter((name) => !isPrivate(join(packages, name)))
    .map((name) => join(packages, name, "README.md"))
    .filter((file) => existsSync(file));
  return [join(repositoryRoot, "README.md"), ...files.sort()];
}

export function readmeBlocks(file: string): ReadmeBlock[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const readme = relative(repositoryRoot, file);
  const blocks: ReadmeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = FENCE.exec(lines[index] ?? "");
    if (!fence) {
      // Skip other fenced blocks whole, so a fence inside them is not taken for a block of ours.
      if (/^```/.test(lines[index] ?? "")) index = closingFence(lines, index, readme);
      continue;
    }
    const end = closingFence(lines, index, readme);
    const { kind, note } = marker(lines, index);
    const language = fence[1]?.startsWith("j") || fence[1] === "mjs" ? "js" : "ts";
    blocks.push({
      readme,
      line: index + 2,
      language,
      kind,
      note,
      code: lines.slice(index + 1, end).join("\n"),
    });
    index = end;
  }
  return blocks;
}

function closingFence(lines: string[], start: number, readme: string): number {
  for (let index = start + 1; index < lines.length; index++)
    if (/^```\s*$/.test(lines[index] ?? "")) return index;
  throw new Error(`${readme}:${start + 1}: a code block is never closed`);
}

/** The HTML comment that ends on the last non-blank line before the fence, if any. */
function marker(lines: string[], fence: number): { kind: BlockKind; note: string } {
  let end = fence - 1;
  while (end >= 0 && (lines[end] ?? "").trim() === "") end--;
  if (end < 0 || !(lines[end] ?? "").trimEnd().endsWith("-->")) return { kind: "program", note: "" };
  let start = end;
  while (start >= 0 && !(lines[start] ?? "").includes("<!--")) start--;
  if (start < 0) return { kind: "program", note: "" };
  const text = lines
    .slice(start, end + 1)
    .join("\n")
    .replace(/^[\s\S]*?<!--/, "")
    .replace(/-->\s*$/, "");
  // The fragment's first line is prose (what it stands in); its declarations start on the next line.
  const fragment = /^\s*fragment\b[^\n]*/.exec(text);
  if (fragment) return { kind: "fragment", note: text.slice(fragment[0].length).trim() };
  const notRun = /^\s*not run:/.exec(text);
  if (notRun) return { kind: "not run", note: text.slice(notRun[0].length).trim() };
  return { kind: "program", note: "" };
}

function isPrivate(directory: string): boolean {
  const manifest = join(directory, "package.json");
  return existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).private === true;
}
