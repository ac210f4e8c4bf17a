import { readdir, readFile, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { hasCode, UnsupportedStoreFormatError } from "../errors.js";
import type { DurableFiles } from "./durable-files.js";
import { encodeName } from "./file-names.js";
import { makeDirectories, makeDirectory, requireStore } from "./store-directory.js";

/**
 * Version 2 keeps a thread's history in records/<id>.events; version 1 kept it inside the record. Version 3
 * adds the catalogue (catalogue/), which every change announces itself in: an earlier version writing the
 * store would leave it out. This code reads all three, and marks an older store as version 3 when it opens
 * it, so that earlier versions of skein refuse the store (`UnsupportedStoreFormatError`) instead of
 * misreading its records or changing threads behind the catalogue's back; the catalogue of a store it
 * marked is built from the records on its first listing.
 */
const FORMAT = { format: "skein-fs", version: 3 } as const;
const READABLE_VERSIONS: readonly unknown[] = [1, 2, 3];
/** Temporary files this old were left by a writer that stopped; younger ones may still be in use. */
const ABANDONED_TEMPORARY_MS = 60 * 60 * 1000;

/**
 * Where everything lives inside a store's directory. Every path comes from `encodeName`, so no id can
 * name a file outside it.
 *
 * ```
 * skein-fs.json            format marker
 * records/<id>.json        a thread's record: a local thread's head, or a saved state
 * records/<id>.events      a local thread's history: a tag line, then one JSON line per event
 * segments/<id>/           one segment: segment.json, messages.jsonl, index.bin, buckets.bin,
 *                          system.bin and refs/ (one empty file per thread or segment that needs it)
 * locks/<id>.lock          a thread's lock file while a writer holds it
 * catalogue/               the index of store.list: journal (one line per change), snapshot.json
 * references.lock          the lock for creating, referencing and reclaiming segments
 * deletes/                 deletes in flight: what each releases once the record is gone (PendingDeletes)
 * tmp/                     files being written, renamed into place when whole
 * trash/                   reclaimed segments being removed
 * ```
 */
export class StoreLayout {
  readonly directory: string;
  readonly records: string;
  readonly segments: string;
  readonly locks: string;
  readonly temporary: string;
  readonly trash: string;
  /** The index of `store.list` (`FsCatalogue`): `journal` and `snapshot.json`. */
  readonly catalogue: string;
  readonly referencesLock: string;
  /** Deletes in flight, `<name>.<nonce>.json` (`PendingDeletes`): finished by a later run when cut short. */
  readonly deletes: string;
  /** The format marker, `skein-fs.json`: a directory without it holds no store. */
  readonly marker: string;

  constructor(directory: string) {
    this.directory = resolve(directory);
    this.records = join(this.directory, "records");
    this.segments = join(this.directory, "segments");
    this.locks = join(this.directory, "locks");
    this.temporary = join(this.directory, "tmp");
    this.trash = join(this.directory, "trash");
    this.catalogue = join(this.directory, "catalogue");
    this.referencesLock = join(this.directory, "references.lock");
    this.deletes = join(this.directory, "deletes");
    this.marker = join(this.directory, "skein-fs.json");
  }

  recordPath(threadId: string): string {
    return join(this.records, `${encodeName(threadId)}.json`);
  }

  eventsPath(threadId: string): string {
    return join(this.records, `${encodeName(threadId)}.events`);
  }

  segmentDirectory(segmentId: string): string {
    return join(this.segments, encodeName(segmentId));
  }

  threadLockPath(threadId: string): string {
    return join(this.locks, `${encodeName(threadId)}.lock`);
  }

  /**
   * Creates the directories, checks the format, and clears what stopped writers left behind. With `create`
   * false, a directory that holds no store yet is a `StoreNotFoundError`, and nothing is created.
   */
  async prepare(files: DurableFiles, create = true): Promise<void> {
    if (create) await makeDirectories(this.directory);
    else await requireStore(this.directory, this.marker);
    for (const path of [
      this.records,
      this.segments,
      this.locks,
      this.temporary,
      this.trash,
      this.catalogue,
      this.deletes,
    ]) {
      await makeDirectory(path, this.directory);
    }
    const marker = this.marker;
    let found: { format?: unknown; version?: unknown } | undefined;
    try {
      found = JSON.parse(await readFile(marker, "utf8"));
    } catch (error) {
      if (!hasCode(error, "ENOENT") && !(error instanceof SyntaxError)) throw error;
    }
    if (found?.format === FORMAT.format && found.version === FORMAT.version) return this.#clearLeftovers();
    if (found?.format === FORMAT.format && !READABLE_VERSIONS.includes(found.version)) {
      throw new UnsupportedStoreFormatError(this.directory, found.version);
    }
    await files.writeAtomically(marker, `${JSON.stringify(FORMAT)}\n`);
    await this.#clearLeftovers();
  }

  async #clearLeftovers(): Promise<void> {
    // Reclaimed segments are unreachable the moment they are moved to trash/.
    for (const name of await readdir(this.trash))
      await rm(join(this.trash, name), { recursive: true, force: true });
    for (const name of await readdir(this.temporary)) {
      const path = join(this.temporary, name);
      try {
        if (Date.now() - (await stat(path)).mtimeMs > ABANDONED_TEMPORARY_MS)
          await rm(path, { recursive: true, force: true });
      } catch (error) {
        if (!hasCode(error, "ENOENT")) throw error;
      }
    }
  }
}
