import { InvalidOptionError } from "./errors.js";
import { describeGiven, optionsObject } from "./option-value.js";

/** What every `ifRevision` takes, in the words its error uses. */
const EXPECTED_REVISION =
  'a revision: a whole number of 0 or more, as thread.revision gives it (a string of digits, as "3" from a header, is read as that number)';

/** Digits only, at most 15 of them: every such string is a safe integer, so it reads back as the same number. */
const REVISION_TEXT = /^[0-9]{1,15}$/;

/**
 * Reads the `ifRevision` a method was given: a whole number of 0 or more as it is, a string of digits as
 * that number (revisions arrive as text from headers, forms and URLs), undefined as no check. Anything else
 * (`"abc"`, -1, 1.5, NaN, null) is an `InvalidOptionError`: no revision could ever match it, so a
 * `ConcurrencyError` would be one that no retry clears. Every door that takes `ifRevision` reads it here.
 */
export function readIfRevision(method: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === "string" && REVISION_TEXT.test(value)) return Number(value);
  throw new InvalidOptionError(method, "ifRevision", EXPECTED_REVISION, describeGiven(value));
}

/**
 * A method's options object (`{}` when none was given) with its `ifRevision` read by `readIfRevision`.
 * @example options = withIfRevision("thread.append", options, "append(message, { ifRevision: 3 })");
 */
export function withIfRevision<Options extends { ifRevision?: number }>(
  method: string,
  options: Options | undefined,
  example: string,
): Options {
  const checked = optionsObject(method, options, example);
  if (checked.ifRevision === undefined) return checked;
  return { ...checked, ifRevision: readIfRevision(method, checked.ifRevision) };
}
