import { open } from "node:fs/promises";
import { type CataloguePlace, type CataloguePlaces, readPlace, storePlace } from "./catalogue-place.js";

/** A journal line that named the erased owner, as it was rewritten (no id: a torn line, now blank). */
export interface ScrubbedLine {
  id?: string;
  places: CataloguePlaces;
}

/**
 * Rewrites, in place, every journal line that names `owner` in one of its places: that place becomes
 * `null` ("no record"), and the line keeps its byte length (the new JSON padded with spaces, which JSON
 * allows), so every offset other processes and the snapshot hold stays right and appends (O_APPEND, at the
 * end) are never overwritten. Only threads with no record of that owner any more are named by `erased`
 * (`store.erase` deleted them): a line of a thread the owner still holds is left as it is. Flushed before
 * it returns. A process that reads a rewritten line learns what is now true: the thread is not at that place.
 */
export async function scrubJournal(
  path: string,
  owner: string,
  erased: (id: string) => Promise<boolean>,
): Promise<ScrubbedLine[]> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // Not the journal's own descriptor: that one is opened for appending, where positioned writes append.
    handle = await open(path, "r+");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return [];
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    const scrubbed: ScrubbedLine[] = [];
    const decided = new Map<string, boolean>();
    let start = 0;
    while (start < bytesRead) {
      let end = buffer.indexOf(10, start);
      if (end < 0 || end >= bytesRead) break; // a line still being written: whole lines only
      const rewritten = await scrubLine(buffer.toString("utf8", start, end), owner, async (id) => {
        if (!decided.has(id)) decided.set(id, await erased(id));
        return decided.get(id) === true;
      });
      if (rewritten) {
        const bytes = Buffer.from(rewritten.text, "utf8");
        const padded = Buffer.alloc(end - start, " ");
        bytes.copy(padded);
        await handle.write(padded, 0, padded.length, start);
        scrubbed.push(rewritten.line);
      }
      start = end + 1;
      end = start;
    }
    if (scrubbed.length > 0) await handle.datasync();
    return scrubbed;
  } finally {
    await handle.close();
  }
}

/** The line without the owner's places, when it names them and the thread is erased; else undefined. */
async function scrubLine(
  text: string,
  owner: string,
  erased: (id: string) => Promise<boolean>,
): Promise<{ text: string; line: ScrubbedLine } | undefined> {
  if (!text.includes(JSON.stringify(owner).slice(1, -1))) return undefined;
  let value: { b?: unknown; i?: unknown; p?: unknown };
  try {
    value = JSON.parse(text);
  } catch {
    // A line torn by a crash of the machine: readers skip it, so it goes blank whole.
    return { text: "", line: { places: [] } };
  }
  if (typeof value.i !== "string" || !Array.isArray(value.p)) return undefined;
  const places = value.p.map(readPlace);
  if (!places.some((place) => place?.owner === owner)) return undefined;
  if (!(await erased(value.i))) return undefined;
  const kept: Array<CataloguePlace | null> = places.map((place) =>
    place === undefined || place?.owner === owner ? null : place,
  );
  const line = { b: value.b, i: value.i, p: kept.map(storePlace) };
  return { text: JSON.stringify(line), line: { id: value.i, places: kept } };
}
