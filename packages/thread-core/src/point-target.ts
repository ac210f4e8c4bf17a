import { InvalidOptionError } from "./errors.js";
import { isPlainObject } from "./json.js";
import { describeGiven } from "./option-value.js";
import type { PointTarget } from "./thread.js";

const EXPECTED_TARGET = 'a checkpoint (or its id), a message id, a point from history(), or "start"';

/**
 * Checks the target of `rollback`, `at` and `fork({ at })` before anything is read: a non-empty string, a
 * checkpoint (an object with a string `id`) or a point (a string `segment` and a whole-number `offset`).
 * Anything else (undefined, a number) is an `InvalidOptionError` saying what a target is.
 */
export function checkPointTarget(method: string, option: string, target: unknown): PointTarget {
  if (typeof target === "string" && target.length > 0) return target;
  if (isPlainObject(target)) {
    if (typeof target.id === "string" && target.id.length > 0) return target as unknown as PointTarget;
    if (
      typeof target.segment === "string" &&
      Number.isSafeInteger(target.offset) &&
      (target.offset as number) >= 0
    ) {
      return target as unknown as PointTarget;
    }
  }
  throw new InvalidOptionError(method, option, EXPECTED_TARGET, describeGiven(target));
}
