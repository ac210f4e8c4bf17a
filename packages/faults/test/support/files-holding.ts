import { readdir, readFile } from "node:fs/promises";

/**
 * Every file under `directory`, all levels down (temporary, staging and lock files included, no
 * exclusions), whose bytes hold `marker`: paths relative to `directory`.
 */
export async function filesHolding(directory: string, marker: string): Promise<string[]> {
  const hits: string[] = [];
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    const path = `${entry.parentPath}/${entry.name}`;
    if (entry.isFile() && (await readFile(path)).includes(marker)) hits.push(path.slice(directory.length));
  }
  return hits.sort();
}
