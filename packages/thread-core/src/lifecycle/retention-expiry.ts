import { InvalidThreadStateError } from "../errors.js";
import { describeGiven } from "../option-value.js";

/** The latest instant a JavaScript `Date` holds, in epoch milliseconds. */
const MAX_TIME = 8.64e15;
/** An ISO-8601 time with a zone, as `toISOString` writes it or a user types it (`2027-01-31T00:00:00Z`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * A thread's `expiresAt` as it is stored: an ISO time (`toISOString`, so stores and indexes sort it as
 * text), `null` to clear it, undefined to keep it. Takes a `Date`, an ISO string with a zone or epoch ms;
 * anything else is an `InvalidThreadStateError` naming the field, so nothing is written.
 */
export function expiryValue(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  let time: number | undefined;
  if (value instanceof Date) time = value.getTime();
  else if (typeof value === "number") time = Number.isFinite(value) ? value : Number.NaN;
  else if (typeof value === "string" && ISO_TIME.test(value)) time = Date.parse(value);
  if (time === undefined || Number.isNaN(time) || Math.abs(time) > MAX_TIME) {
    throw new InvalidThreadStateError(
      `expiresAt is ${describeGiven(value)}; give a Date, an ISO time with a zone ("2027-01-31T00:00:00Z") or epoch milliseconds, or null to clear it`,
      ["expiresAt"],
    );
  }
  return new Date(time).toISOString();
}
