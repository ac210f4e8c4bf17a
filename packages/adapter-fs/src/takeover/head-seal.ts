import { randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { CorruptStoreError, hasCode } from "../errors.js";

/** Claims the seal: created empty and exclusively, before the sealed end is read. */
const CLAIM_FILE = "sealed";
/**
 * The sealed end, `{"count":N}` (and `"end"`, the thread's end there, for a thread that keeps one): linked
 * into place whole, once, by the first writer that publishes it.
 */
const END_FILE = "sealed-at";
const POLL_MS = 5;

/**
 * A head segment's seal, as a takeover leaves it (see `head-takeover.ts`): `"open"`, no seal; `"claimed"`,
 * a takeover has begun and not yet published where the segment ends; `"sealed"`, the segment ends after
 * its first `count` messages for every reader, whatever is written past them, and the thread's end there is
 * `end` (`LogRecord.end`: recorded for a thread that keeps one, since the head's end file may be written
 * past the seal by the appender taken over); `"gone"`, the segment directory was reclaimed (its thread
 * deleted).
 */
export type SealState =
  | { state: "open" }
  | { state: "claimed" }
  | { state: "sealed"; count: number; end?: string }
  | { state: "gone" };

/**
 * The segment's seal, read at once: one `stat` when there is none (the directory's entries are in the page
 * cache), a second one to tell a missing seal from a missing segment.
 */
export function sealState(directory: string): SealState {
  if (!statSync(join(directory, CLAIM_FILE), { throwIfNoEntry: false })) {
    return statSync(directory, { throwIfNoEntry: false }) ? { state: "open" } : { state: "gone" };
  }
  const path = join(directory, END_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (hasCode(error, "ENOENT")) return { state: "claimed" };
    throw error;
  }
  const { count, end } = JSON.parse(text) as { count?: unknown; end?: unknown };
  if (
    typeof count !== "number" ||
    !Number.isInteger(count) ||
    count < 0 ||
    !["string", "undefined"].includes(typeof end)
  )
    throw new CorruptStoreError(path, "it does not hold where a sealed segment ends");
  return typeof end === "string" ? { state: "sealed", count, end } : { state: "sealed", count };
}

/** Whether the segment's seal is claimed (or published), in one `stat`. */
export function isSealed(directory: string): boolean {
  return statSync(join(directory, CLAIM_FILE), { throwIfNoEntry: false }) !== undefined;
}

/** Claims the segment's seal (a no-op when claimed already). Call it before reading where the segment ends. */
export function claimSeal(directory: string): void {
  try {
    closeSync(openSync(join(directory, CLAIM_FILE), "wx"));
  } catch (error) {
    if (!hasCode(error, "EEXIST")) throw error;
  }
}

/**
 * Publishes where a claimed segment ends, durably (always flushed, whatever the store's durability: an
 * appender told that its append did not land must never find it there after a power loss). The first
 * publication wins: the end is written to a temporary file and linked into place, which fails if another
 * writer published first. Returns the published end.
 * @param end the thread's end after those `count` messages, for a thread that keeps one (`LogRecord.end`).
 */
export function publishSeal(
  directory: string,
  count: number,
  temporaryDirectory: string,
  end?: string,
): number {
  const temporary = join(temporaryDirectory, `sealed-${randomBytes(12).toString("hex")}`);
  const descriptor = openSync(temporary, "wx");
  try {
    writeSync(descriptor, JSON.stringify({ count, end }));
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  try {
    linkSync(temporary, join(directory, END_FILE));
  } catch (error) {
    if (!hasCode(error, "EEXIST")) throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  const directoryDescriptor = openSync(directory, "r");
  try {
    fsyncSync(directoryDescriptor);
  } finally {
    closeSync(directoryDescriptor);
  }
  const published = sealState(directory);
  if (published.state !== "sealed")
    throw new CorruptStoreError(join(directory, END_FILE), "it vanished right after it was published");
  return published.count;
}

/**
 * Rewrites a published seal without the thread's end (`publishSeal`'s `end`), flushed, once the thread moved
 * off the sealed head: no older end of the thread is left in the store beside the current one. Readers of
 * the sealed head still holding the old record read the record again (`FsLogDriver.#live`).
 */
export function dropSealEnd(directory: string, temporaryDirectory: string): void {
  const seal = sealState(directory);
  if (seal.state !== "sealed" || seal.end === undefined) return;
  const temporary = join(temporaryDirectory, `sealed-${randomBytes(12).toString("hex")}`);
  const descriptor = openSync(temporary, "wx");
  try {
    writeSync(descriptor, JSON.stringify({ count: seal.count }));
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  renameSync(temporary, join(directory, END_FILE));
  const directoryDescriptor = openSync(directory, "r");
  try {
    fsyncSync(directoryDescriptor);
  } finally {
    closeSync(directoryDescriptor);
  }
}

/** The seal once its end is published or the segment is gone, or as it still is after `timeoutMs`. */
export async function awaitSeal(directory: string, timeoutMs: number): Promise<SealState> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const seal = sealState(directory);
    if (seal.state === "sealed" || seal.state === "gone" || seal.state === "open" || Date.now() >= until)
      return seal;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
