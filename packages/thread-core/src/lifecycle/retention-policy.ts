import { catalogueEntry } from "../catalogue/catalogue-entry.js";
import { catalogueOf } from "../catalogue/catalogue-fields.js";
import { InvalidOptionError } from "../errors.js";
import { isPlainObject } from "../json.js";
import { describeGiven } from "../option-value.js";
import type { StoredRecord } from "../spec/log-driver.js";
import type { RetentionOptions, ThreadSummary } from "../spec/thread-store.js";

/** A retention policy checked and in milliseconds: what stores hold and sweeps follow. */
export interface RetentionPolicy {
  idleFor?: number;
  maxAge?: number;
  keep?: (summary: ThreadSummary) => boolean;
  now: () => number;
}

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/;
const KNOWN = new Set(["idleFor", "maxAge", "keep", "now"]);

/**
 * `openStore`'s (or `scope`'s) `retention` option, checked before anything is opened: a malformed
 * duration ("30x"), a negative or zero one, an unknown key or a `keep` that is no function is an
 * `InvalidOptionError` naming the option. Undefined when no policy was given.
 * @example retentionPolicy({ idleFor: "30d", keep: (thread) => thread.metadata.pinned === true })
 */
export function retentionPolicy(
  options: RetentionOptions | undefined,
  method = "openStore",
): RetentionPolicy | undefined {
  if (options === undefined) return undefined;
  if (!isPlainObject(options as unknown)) {
    throw new InvalidOptionError(
      method,
      "retention",
      'an object, as { idleFor: "30d" }',
      describeGiven(options),
    );
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) {
      throw new InvalidOptionError(
        method,
        `retention.${key}`,
        "one of idleFor, maxAge, keep and now",
        "an option retention does not know",
      );
    }
  }
  const idleFor = duration(options.idleFor, method, "retention.idleFor");
  const maxAge = duration(options.maxAge, method, "retention.maxAge");
  for (const name of ["keep", "now"] as const) {
    const value = options[name];
    if (value !== undefined && typeof value !== "function") {
      throw new InvalidOptionError(method, `retention.${name}`, "a function", describeGiven(value));
    }
  }
  return {
    ...(idleFor === undefined ? {} : { idleFor }),
    ...(maxAge === undefined ? {} : { maxAge }),
    ...(options.keep ? { keep: options.keep } : {}),
    now: options.now ?? Date.now,
  };
}

/** A duration in milliseconds: a positive number of them, or a positive number with a unit. */
export function duration(value: unknown, method: string, option: string): number | undefined {
  if (value === undefined) return undefined;
  let milliseconds = Number.NaN;
  if (typeof value === "number") milliseconds = value;
  else if (typeof value === "string") {
    const match = DURATION.exec(value.trim());
    if (match) milliseconds = Number(match[1]) * (UNITS[match[2] as string] as number);
  }
  if (!Number.isFinite(milliseconds) || milliseconds <= 0 || milliseconds > 8.64e15) {
    throw new InvalidOptionError(
      method,
      option,
      'a positive duration: milliseconds, or a number with ms, s, m, h, d or w ("30d", "12h")',
      describeGiven(value),
    );
  }
  return milliseconds;
}

/**
 * When a record expires, in epoch ms: the earliest of its own `expiresAt`, its last change plus
 * `idleFor` and its creation plus `maxAge`; undefined when none applies. Only local threads expire: a
 * saved state (a remote thread's, a workflow's) refers to things a sweep cannot reclaim.
 */
export function expiryOf(record: StoredRecord, policy: RetentionPolicy | undefined): number | undefined {
  if (record.kind !== "log") return undefined;
  const times: number[] = [];
  const own = catalogueOf(record.context).expiresAt;
  if (own !== undefined) times.push(Date.parse(own));
  if (policy?.idleFor !== undefined) times.push(Date.parse(record.updatedAt) + policy.idleFor);
  if (policy?.maxAge !== undefined) times.push(Date.parse(record.createdAt) + policy.maxAge);
  const valid = times.filter((time) => !Number.isNaN(time));
  return valid.length === 0 ? undefined : Math.min(...valid);
}

/** Whether `record` has expired at `now` (the policy's clock by default) and `keep` does not keep it. */
export function isExpired(
  record: StoredRecord,
  policy: RetentionPolicy | undefined,
  now = (policy?.now ?? Date.now)(),
): boolean {
  const expiry = expiryOf(record, policy);
  if (expiry === undefined || expiry > now) return false;
  return !policy?.keep?.(catalogueEntry(record));
}
