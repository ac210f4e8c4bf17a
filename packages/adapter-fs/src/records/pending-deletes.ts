import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hasCode } from "../errors.js";
import { removeIfPresent } from "../locks/staging-area.js";
import type { DurableFiles } from "./durable-files.js";
import { encodeName } from "./file-names.js";
import type { StoreLayout } from "./store-layout.js";

/** `<thread's file name>.<lock holding's nonce>.json`; file names from `encodeName` hold no `.`. */
const PENDING_NAME = /^([^.]+)\.([0-9a-f]{24})\.json$/;

/** A pending delete's file: which lock holding wrote it. */
export interface PendingDeleteFile {
  path: string;
  /** The nonce of the thread lock's holding that was deleting the thread. */
  nonce: string;
}

/** What a pending delete says: the thread, and every segment its record or history pointed at. */
export interface PendingDelete {
  thread: string;
  segments: string[];
}

/**
 * A delete's intent, `deletes/<name>.<nonce>.json`, written and flushed before a local thread's record is
 * removed and removed once all of its segment references were released. A process killed in between (or a
 * deleter whose lock was taken over) leaves it behind, naming what nothing else names any more: the segments
 * whose `refs/thread.<name>` nobody would release, and, through the nonce, the lock holding whose staging
 * directory holds the removed record and history. `finishPendingDeletes` finishes it under the thread's
 * lock. One file per delete in flight, so listing them costs a `readdir` of a directory that is almost
 * always empty.
 */
export class PendingDeletes {
  constructor(
    readonly layout: StoreLayout,
    readonly files: DurableFiles,
  ) {}

  /**
   * Writes the intent of the holding `nonce` to delete `thread`, flushed (in both durabilities, as records
   * are) before the record's removal can reach the disk: a crash never leaves the removal without it.
   */
  async write(thread: string, nonce: string, segments: Iterable<string>): Promise<string> {
    const path = join(this.layout.deletes, `${encodeName(thread)}.${nonce}.json`);
    const content: PendingDelete = { thread, segments: [...segments] };
    writeFileSync(path, `${JSON.stringify(content)}\n`);
    await this.files.syncAll([path, this.layout.deletes]);
    return path;
  }

  /** The pending deletes of `thread`, by any holding. */
  of(thread: string): PendingDeleteFile[] {
    const prefix = `${encodeName(thread)}.`;
    return this.all().filter((file) => file.path.slice(this.layout.deletes.length + 1).startsWith(prefix));
  }

  /** Every pending delete in the store. */
  all(): PendingDeleteFile[] {
    let names: string[];
    try {
      names = readdirSync(this.layout.deletes);
    } catch (error) {
      // A store made by an earlier version, not prepared by this one yet: no delete of this version's ran.
      if (hasCode(error, "ENOENT")) return [];
      throw error;
    }
    const files: PendingDeleteFile[] = [];
    for (const name of names) {
      const parsed = PENDING_NAME.exec(name);
      if (parsed) files.push({ path: join(this.layout.deletes, name), nonce: parsed[2] as string });
    }
    return files;
  }

  /**
   * What a pending delete says; undefined when it is gone (finished meanwhile) or torn (its writer died
   * writing it, so before it removed anything: there is nothing to finish).
   */
  read(path: string): PendingDelete | undefined {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if (hasCode(error, "ENOENT")) return undefined;
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as PendingDelete;
      if (typeof parsed.thread === "string" && Array.isArray(parsed.segments)) return parsed;
    } catch {
      // Torn: see above.
    }
    return undefined;
  }

  /** Removes a pending delete once it is done; not flushed: one that comes back after a power loss finishes again, a no-op. */
  remove(path: string): void {
    removeIfPresent(path);
  }
}
