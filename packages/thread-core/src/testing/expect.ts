import { AssertionError } from "node:assert";
import { inspect } from "node:util";

/**
 * The assertions the conformance cases make, in the `expect(actual).toEqual(expected)` form they were written in,
 * on node:assert's `AssertionError` (which every runner reports with its diff). The suite carries them itself so
 * that it runs under any runner and pins none; the semantics follow vitest's and jest's: `toEqual` ignores
 * properties that are `undefined` and does not compare classes, `toBe` is `Object.is`, `toContain` is `===`.
 */

/** A value inside an expected shape that matches by a rule of its own (`expect.any(String)`). */
class Asymmetric {
  constructor(
    readonly description: string,
    readonly matches: (actual: unknown) => boolean,
  ) {}

  [inspect.custom](): string {
    return this.description;
  }
}

type Check = { pass: boolean; message: string; expected?: unknown };
type Constructor = abstract new (...args: never[]) => unknown;

const show = (value: unknown) => inspect(value, { depth: 6, breakLength: 100 });
const isObject = (value: unknown): value is Record<PropertyKey, unknown> =>
  typeof value === "object" && value !== null;
const definedKeys = (value: Record<PropertyKey, unknown>) =>
  Object.keys(value).filter((key) => value[key] !== undefined);

/** Deep equality as `toEqual` has it. */
function equals(actual: unknown, expected: unknown): boolean {
  if (expected instanceof Asymmetric) return expected.matches(actual);
  if (Object.is(actual, expected)) return true;
  if (!isObject(actual) || !isObject(expected)) return false;
  if (actual instanceof Date || expected instanceof Date) {
    return (
      actual instanceof Date && expected instanceof Date && Object.is(actual.getTime(), expected.getTime())
    );
  }
  if (actual instanceof RegExp || expected instanceof RegExp) return String(actual) === String(expected);
  if (actual instanceof Error || expected instanceof Error) {
    if (!(actual instanceof Error && expected instanceof Error)) return false;
    if (actual.name !== expected.name || actual.message !== expected.message) return false;
  }
  if (Array.isArray(actual) !== Array.isArray(expected)) return false;
  if (Array.isArray(actual) && Array.isArray(expected)) {
    return actual.length === expected.length && expected.every((item, index) => equals(actual[index], item));
  }
  if (actual instanceof Map || expected instanceof Map) {
    if (!(actual instanceof Map && expected instanceof Map) || actual.size !== expected.size) return false;
    return [...expected].every(([key, value]) => actual.has(key) && equals(actual.get(key), value));
  }
  if (actual instanceof Set || expected instanceof Set) {
    if (!(actual instanceof Set && expected instanceof Set) || actual.size !== expected.size) return false;
    return [...expected].every((item) => [...actual].some((candidate) => equals(candidate, item)));
  }
  const expectedKeys = definedKeys(expected);
  if (definedKeys(actual).length !== expectedKeys.length) return false;
  return expectedKeys.every((key) => Object.hasOwn(actual, key) && equals(actual[key], expected[key]));
}

/** `toMatchObject`: every property the expected object names, recursively; arrays element by element. */
function matchesObject(actual: unknown, expected: unknown): boolean {
  if (expected instanceof Asymmetric) return expected.matches(actual);
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => matchesObject(actual[index], item))
    );
  }
  if (isObject(expected) && !(expected instanceof Date) && !(expected instanceof RegExp)) {
    if (!isObject(actual)) return false;
    return Object.keys(expected).every((key) => key in actual && matchesObject(actual[key], expected[key]));
  }
  return equals(actual, expected);
}

/** What a `toThrow` argument accepts: any error, an error class, a message pattern or part, or an error. */
function thrownMatches(error: unknown, expected: unknown): boolean {
  if (expected === undefined) return true;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof expected === "function") return error instanceof expected;
  if (expected instanceof RegExp) return expected.test(message);
  if (typeof expected === "string") return message.includes(expected);
  if (expected instanceof Error) return message === expected.message;
  return false;
}

const MATCHERS = {
  toBe: (actual: unknown, expected: unknown): Check => ({
    pass: Object.is(actual, expected),
    message: `${show(actual)} to be ${show(expected)}`,
    expected,
  }),
  toEqual: (actual: unknown, expected: unknown): Check => ({
    pass: equals(actual, expected),
    message: `${show(actual)} to equal ${show(expected)}`,
    expected,
  }),
  toMatchObject: (actual: unknown, expected: object): Check => ({
    pass: matchesObject(actual, expected),
    message: `${show(actual)} to match ${show(expected)}`,
    expected,
  }),
  toBeInstanceOf: (actual: unknown, expected: Constructor): Check => ({
    pass: actual instanceof expected,
    message: `${show(actual)} to be an instance of ${expected.name}`,
  }),
  toHaveLength: (actual: unknown, expected: number): Check => ({
    pass:
      isObject(actual) || typeof actual === "string"
        ? (actual as { length?: unknown }).length === expected
        : false,
    message: `${show(actual)} to have length ${expected}`,
  }),
  toContain: (actual: unknown, expected: unknown): Check => ({
    pass:
      typeof actual === "string"
        ? actual.includes(String(expected))
        : isObject(actual) && Symbol.iterator in actual
          ? [...(actual as unknown as Iterable<unknown>)].some((item) => item === expected)
          : false,
    message: `${show(actual)} to contain ${show(expected)}`,
  }),
  toMatch: (actual: unknown, expected: RegExp | string): Check => ({
    pass:
      typeof actual === "string" &&
      (typeof expected === "string" ? actual.includes(expected) : expected.test(actual)),
    message: `${show(actual)} to match ${show(expected)}`,
  }),
  toBeUndefined: (actual: unknown): Check => ({
    pass: actual === undefined,
    message: `${show(actual)} to be undefined`,
  }),
  toBeGreaterThan: (actual: unknown, expected: number): Check => ({
    pass: typeof actual === "number" && actual > expected,
    message: `${show(actual)} to be greater than ${expected}`,
  }),
  toHaveProperty: (actual: unknown, expected: string): Check => ({
    pass: actual !== null && actual !== undefined && expected in Object(actual),
    message: `${show(actual)} to have the property ${show(expected)}`,
  }),
  toSatisfy: (actual: unknown, expected: (value: unknown) => boolean): Check => ({
    pass: Boolean(expected(actual)),
    message: `${show(actual)} to satisfy ${expected.toString()}`,
  }),
  toThrow: (actual: unknown, expected?: unknown): Check => {
    if (typeof actual !== "function") return { pass: false, message: `${show(actual)} to be a function` };
    try {
      actual();
    } catch (error) {
      return { pass: thrownMatches(error, expected), message: `${show(error)} to match ${show(expected)}` };
    }
    return { pass: false, message: "the function to throw, but it returned" };
  },
};

type Matchers = typeof MATCHERS;
type Rest<Matcher> = Matcher extends (actual: unknown, ...rest: infer Arguments) => Check ? Arguments : never;
type Assertion = { [Name in keyof Matchers]: (...expected: Rest<Matchers[Name]>) => void };
type AsyncAssertion = { [Name in keyof Matchers]: (...expected: Rest<Matchers[Name]>) => Promise<void> };

function verdict(
  check: Check,
  negated: boolean,
  actual: unknown,
  note: string | undefined,
  operator: string,
) {
  if (check.pass !== negated) return;
  const message = `expected ${negated ? "not " : ""}${check.message}`;
  throw new AssertionError({
    message: note ? `${note}: ${message}` : message,
    actual,
    expected: check.expected,
    operator,
  });
}

function assertion(actual: unknown, negated: boolean, note: string | undefined): Assertion {
  const entries = Object.entries(MATCHERS).map(([name, matcher]) => [
    name,
    (...expected: unknown[]) =>
      verdict((matcher as (...values: unknown[]) => Check)(actual, ...expected), negated, actual, note, name),
  ]);
  return Object.fromEntries(entries) as Assertion;
}

/** `await expect(promise).rejects.toThrow(...)`: the matcher applies to what the promise rejected with. */
function rejection(promise: unknown, note: string | undefined): AsyncAssertion {
  const entries = Object.keys(MATCHERS).map((name) => [
    name,
    async (...expected: unknown[]) => {
      try {
        await promise;
      } catch (reason) {
        // toThrow takes a function that throws: give it one that throws the reason.
        const actual =
          name === "toThrow"
            ? () => {
                throw reason;
              }
            : reason;
        const target = assertion(actual, false, note) as unknown as Record<
          string,
          (...values: unknown[]) => void
        >;
        target[name]?.(...expected);
        return;
      }
      throw new AssertionError({
        message: `${note ? `${note}: ` : ""}expected the promise to reject`,
        operator: name,
      });
    },
  ]);
  return Object.fromEntries(entries) as AsyncAssertion;
}

/** `expect(actual, note?)` with the matchers the conformance cases use, `.not` and `.rejects`. */
export const expect = Object.assign(
  (actual: unknown, note?: string) =>
    Object.assign(assertion(actual, false, note), {
      not: assertion(actual, true, note),
      rejects: rejection(actual, note),
    }),
  {
    /** Any value of this class, or of this primitive type for `String`, `Number`, `Boolean`. */
    any: (type: Constructor | StringConstructor | NumberConstructor | BooleanConstructor) =>
      new Asymmetric(`Any<${type.name}>`, (actual) =>
        type === String
          ? typeof actual === "string"
          : type === Number
            ? typeof actual === "number"
            : type === Boolean
              ? typeof actual === "boolean"
              : actual instanceof (type as Constructor),
      ) as never,
    /** An array holding, among others, an element equal to each of these. */
    arrayContaining: (expected: readonly unknown[]) =>
      new Asymmetric(
        `ArrayContaining ${show(expected)}`,
        (actual) =>
          Array.isArray(actual) &&
          expected.every((item) => actual.some((candidate) => equals(candidate, item))),
      ) as never,
    /** An object with these properties equal, and any others. */
    objectContaining: (expected: Record<string, unknown>) =>
      new Asymmetric(
        `ObjectContaining ${show(expected)}`,
        (actual) =>
          isObject(actual) &&
          Object.keys(expected).every((key) => key in actual && equals(actual[key], expected[key])),
      ) as never,
    /** A string that holds this text. */
    stringContaining: (expected: string) =>
      new Asymmetric(
        `StringContaining ${show(expected)}`,
        (actual) => typeof actual === "string" && actual.includes(expected),
      ) as never,
  },
);
