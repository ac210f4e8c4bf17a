import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { LockWrites } from "./lease.js";
import { type LockFileContent, processStart } from "./lock-file-primitives.js";

/** This process as the owner of lock files: what it writes into a lock file and a `.break` file it takes. */
export class LockOwner {
  readonly host = hostname();
  /** This process's start time, written into its locks. */
  readonly #started = processStart(process.pid);
  /** `#started` once known (every lock this process releases was acquired after it was). */
  #startedNow: string | undefined;
  /** What this process writes into a `.break` file it takes to release a lock. */
  #breakerContent: string | undefined;

  /** A lock file's content; `mark` says a taker that must still fence, or a breaker's `.break` file. */
  async content(nonce: string, writes: LockWrites, mark?: "fencing" | "breaking"): Promise<string> {
    const started = await this.#started;
    this.#startedNow = started;
    const content: Omit<LockFileContent, "ageMs"> = {
      pid: process.pid,
      hostname: this.host,
      nonce,
      writes,
      acquiredAt: new Date().toISOString(),
      ...(started === undefined ? {} : { started }),
      ...(mark === undefined ? {} : { [mark]: true }),
    };
    return JSON.stringify(content);
  }

  /** What this process writes into a `.break` file of its own, taken to release a lock. */
  releaserContent(): string {
    const started = this.#startedNow;
    this.#breakerContent ??= JSON.stringify({
      pid: process.pid,
      hostname: this.host,
      nonce: randomBytes(12).toString("hex"),
      writes: "record",
      releasing: true,
      ...(started === undefined ? {} : { started }),
    });
    return this.#breakerContent;
  }
}
