import { fstatSync, readSync, writeSync } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { hasCode } from "../errors.js";
import type { DurableFiles } from "./durable-files.js";

/** Reads `length` bytes at `position` (fewer at the end of the file). */
export async function readAt(handle: FileHandle, length: number, position: number): Promise<Buffer> {
  // Not zeroed: only the bytes read are given back.
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/**
 * `readAt` without the thread-pool round trip, for the few bytes an id lookup probes: a small read of a file
 * the page cache holds takes about a microsecond this way, against tens through the pool.
 */
export function readAtNow(handle: FileHandle, length: number, position: number): Buffer {
  // Not zeroed (small ones come from Node's shared pool): only the bytes read are given back.
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(handle.fd, buffer, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/** Writes `data` at `position` of an existing file and makes it durable as `files` promises. */
export async function writeAt(
  files: DurableFiles,
  path: string,
  data: Uint8Array,
  position: number,
): Promise<void> {
  const handle = await open(path, "r+");
  try {
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written, position + written);
      written += bytesWritten;
    }
    await files.syncAppend(handle, path);
  } finally {
    await handle.close();
  }
}

/** Writes smaller than this go straight from the event loop: a few kilobytes into the page cache take microseconds. */
const DIRECT_WRITE_LIMIT = 64 * 1024;

/** Writes all of `data` at `position` through an open handle, without flushing it. */
export async function writeThrough(handle: FileHandle, data: Uint8Array, position: number): Promise<void> {
  let written = 0;
  while (written < data.length) {
    written +=
      data.length <= DIRECT_WRITE_LIMIT
        ? writeSync(handle.fd, data, written, data.length - written, position + written)
        : (await handle.write(data, written, data.length - written, position + written)).bytesWritten;
  }
}

/** The size of an open file, at once (no thread-pool round trip). */
export function sizeNow(handle: FileHandle): number {
  return fstatSync(handle.fd).size;
}

/** Cuts a file back to `length` bytes, durably: what lay beyond was never acknowledged. */
export async function truncateTo(files: DurableFiles, path: string, length: number): Promise<void> {
  const handle = await open(path, "r+");
  try {
    await handle.truncate(length);
    await files.syncAppend(handle, path);
  } finally {
    await handle.close();
  }
}

/** The file's size, 0 when it does not exist. */
export async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if (hasCode(error, "ENOENT")) return 0;
    throw error;
  }
}

/** Opens a file for reading (or `"r+"`: reading and writing), or gives undefined when it does not exist. */
export async function openIfExists(path: string, flags: "r" | "r+" = "r"): Promise<FileHandle | undefined> {
  try {
    return await open(path, flags);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return undefined;
    throw error;
  }
}
