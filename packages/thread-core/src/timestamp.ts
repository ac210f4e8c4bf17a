import { z } from "zod";

export const ISO_UTC_TIMESTAMP =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?Z$/;

/**
 * An ISO-8601 UTC timestamp (`2026-11-21T22:39:36.000Z`), as every skein timestamp is. A plain regex:
 * it is checked once per message, so it must be cheap.
 */
export const TimestampSchema = z
  .string()
  .regex(ISO_UTC_TIMESTAMP, "expected an ISO-8601 UTC timestamp such as 2026-11-21T22:39:36.000Z")
  .meta({ format: "date-time" });
