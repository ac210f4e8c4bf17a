import { InvalidOptionError, quoteUntrusted } from "./errors.js";
import { isPlainObject } from "./json.js";

/**
 * How an error shows a value it refused: numbers, booleans, null and undefined as they are, a string
 * quoted and cut short (it may be untrusted input), anything else by its kind, never its content.
 */
export function describeGiven(value: unknown): string {
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  if (typeof value === "string") return quoteUntrusted(value, 40);
  if (typeof value === "bigint") return "a BigInt";
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return "a symbol";
  return Array.isArray(value) ? "an array" : "an object";
}

/**
 * The options object a method was given, `{}` when it was given none. Anything else (a string where
 * `{ at }` was meant, an array) is an `InvalidOptionError`, rather than read as an object without options.
 */
export function optionsObject<Options extends object>(
  method: string,
  options: Options | undefined,
  example: string,
): Options {
  if (options === undefined) return {} as Options;
  return objectArgument(method, "options", options, `an options object, as ${example}`);
}

/** An argument that must be an object (a patch, options): anything else is an `InvalidOptionError`. */
export function objectArgument<Value extends object>(
  method: string,
  argument: string,
  value: Value | undefined,
  expected: string,
): Value {
  if (isPlainObject(value)) return value;
  throw new InvalidOptionError(method, argument, expected, describeGiven(value));
}

/** A whole number of 0 or more, or Infinity (no bound): what counts of messages take. */
export function isCount(value: unknown): value is number {
  return value === Number.POSITIVE_INFINITY || (Number.isSafeInteger(value) && (value as number) >= 0);
}
