import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hasCode } from "../errors.js";
import type { DurableFiles } from "../records/durable-files.js";

/**
 * How a segment's `messages.jsonl` and `index.bin` are replaced by a rewritten copy (key rotation), since
 * no rename swaps two files at once:
 * 1. the copy is written beside them as `rekey-<generation>.jsonl` and `.bin`, and flushed;
 * 2. the mark `rekey.json` names the generation (renamed into place, flushed): from here the copy is whole;
 * 3. the copy's log is renamed over `messages.jsonl`, then its index over `index.bin`;
 * 4. the mark is removed.
 * Between the renames of step 3 the two files do not go together. Every writer of a segment holds a lock
 * the rewriter holds too (the thread's, or the references lock for a segment no thread appends to) and
 * settles the segment first (`settleSwap`, from `SegmentLog.withFiles`), as a reader that finds a line not
 * matching its entry does under those locks before reading again. Settling finds out how far a stopped
 * rewriter got: its log not renamed yet, the old pair is whole and the copy is dropped (rolled back); its
 * log renamed, the index follows (rolled forward). A settler first takes the copy's index away (a rename),
 * then its log, so a rewriter that lost its lock to a takeover meanwhile finds its copy gone and stops
 * before it swaps anything more.
 */
export const SWAP_MARK = "rekey.json";

/** The copy's two files in a segment's directory, by generation. */
export function swapFiles(directory: string, generation: string): { log: string; index: string } {
  return {
    log: join(directory, `rekey-${generation}.jsonl`),
    index: join(directory, `rekey-${generation}.bin`),
  };
}

/** A fresh generation name for a rewrite. */
export function newGeneration(): string {
  return randomBytes(8).toString("hex");
}

/** Whether a rewrite of the segment in `directory` was left unfinished (or is under way). Read at once. */
export function hasSwapMark(directory: string): boolean {
  return existsSync(join(directory, SWAP_MARK));
}

/**
 * Finishes or rolls back a rewrite that stopped between its mark and its end; nothing when there is no mark.
 * Call it holding the segment's writers' lock (see above), before opening its files.
 */
export async function settleSwap(directory: string, files: DurableFiles): Promise<void> {
  const generation = readMark(directory);
  if (generation === undefined) return;
  const copy = swapFiles(directory, generation);
  // The copy's index is taken first, out of everyone's reach: whoever holds it alone decides, so two
  // settlers (or a settler and a rewriter that lost its lock) never decide differently.
  const index = files.temporaryPath();
  if (await moved(copy.index, index)) {
    const log = files.temporaryPath();
    if (await moved(copy.log, log)) {
      // The log was not swapped yet: the old pair is whole; the copy goes.
      await rm(log, { force: true });
      await rm(index, { force: true });
    } else {
      // The log was swapped: the index follows.
      await rename(index, join(directory, "index.bin"));
    }
  }
  await rm(join(directory, SWAP_MARK), { force: true });
  await files.syncDirectory(directory);
}

/** Renames `from` to `to`; false when `from` is gone (renamed by someone else). */
async function moved(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if (hasCode(error, "ENOENT")) return false;
    throw error;
  }
}

/**
 * Removes copies a rewriter stopped before its mark left (whole or not, nothing reads them). Call it
 * holding the lock, after `settleSwap`.
 */
export async function removeStrayCopies(directory: string): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return;
    throw error;
  }
  for (const name of names) {
    if (/^rekey-[0-9a-f]+\.(jsonl|bin)$/.test(name)) await rm(join(directory, name), { force: true });
  }
}

/**
 * Steps 1–4 for a copy already built: `log` and `index` are its files' bytes. `stillHeld` is checked before
 * the mark (a takeover may have happened while the copy was written); false stops the swap before it began.
 * Answers false when a settler rolled the copy back meanwhile (the lock was taken over): nothing changed.
 */
export async function swapIn(
  directory: string,
  files: DurableFiles,
  log: Uint8Array,
  index: Uint8Array,
  stillHeld: () => boolean,
): Promise<boolean> {
  const generation = newGeneration();
  const copy = swapFiles(directory, generation);
  await writeFile(copy.log, log, { flag: "wx" });
  await writeFile(copy.index, index, { flag: "wx" });
  await files.syncFiles([copy.log, copy.index]);
  if (!stillHeld()) {
    await rm(copy.log, { force: true });
    await rm(copy.index, { force: true });
    return false;
  }
  await files.writeAtomically(join(directory, SWAP_MARK), `${JSON.stringify({ generation })}\n`);
  // Gone: a settler that took the lock over rolled the copy back. Then the index's copy gone too: that
  // settler finishes the swap (it found the log swapped).
  if (!(await moved(copy.log, join(directory, "messages.jsonl")))) return false;
  await moved(copy.index, join(directory, "index.bin"));
  await rm(join(directory, SWAP_MARK), { force: true });
  await files.syncDirectory(directory);
  return true;
}

function readMark(directory: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(directory, SWAP_MARK), "utf8");
  } catch (error) {
    if (hasCode(error, "ENOENT")) return undefined;
    throw error;
  }
  try {
    const generation = (JSON.parse(text) as { generation?: unknown }).generation;
    if (typeof generation === "string" && /^[0-9a-f]+$/.test(generation)) return generation;
  } catch {
    // An unreadable mark: it was renamed into place whole, so the copy it named is left alone below.
  }
  return undefined;
}
