import { InvalidOptionError } from "./errors.js";
import type { Message } from "./message.js";
import { describeGiven, isCount, optionsObject } from "./option-value.js";
import type { ReadOptions, ViewOptions } from "./thread.js";

const COUNT = "a whole number of 0 or more (or Infinity for no bound)";

/**
 * Checks `messages({ last, after, before, limit })` before anything is read: counts are whole numbers of 0
 * or more, ids are strings. A wrong one is an `InvalidOptionError`, never a silent "everything" or "nothing".
 */
export function checkReadOptions(method: string, options: ReadOptions | undefined): ReadOptions {
  const checked = optionsObject(method, options, "messages({ last: 20 })");
  for (const option of ["last", "limit"] as const) {
    const value = checked[option];
    if (value !== undefined && !isCount(value)) {
      throw new InvalidOptionError(method, option, COUNT, describeGiven(value));
    }
  }
  for (const option of ["after", "before"] as const) {
    if (checked[option] !== undefined) checkMessageId(method, option, checked[option]);
  }
  return checked;
}

/** Checks a message id a read was given (`message(id)`, `messages({ after })`): a non-empty string. */
export function checkMessageId(method: string, option: string, id: unknown): asserts id is string {
  if (typeof id !== "string" || id.length === 0) {
    throw new InvalidOptionError(method, option, "a message id (a non-empty string)", describeGiven(id));
  }
}

/**
 * Checks `view({ maxMessages, maxTokens, countTokens, keepSystem })` before anything is read. A budget that
 * is not a number of 0 or more (`"20"`, NaN, -1) is an `InvalidOptionError`, never a view of everything or
 * of nothing.
 */
export function checkViewOptions(method: string, options: ViewOptions | undefined): ViewOptions {
  const checked = optionsObject(method, options, "view({ maxTokens: 8000 })");
  // Each option with the test it must pass and what the error says it takes.
  const rules: Array<[keyof ViewOptions, (value: unknown) => boolean, string]> = [
    // Budgets, not positions: a fraction is a budget too (2.5 messages keeps 2), as it always was.
    ["maxMessages", isBudget, "a number of messages, 0 or more (or Infinity for no bound)"],
    ["maxTokens", isBudget, "a number of tokens, 0 or more (or Infinity for no bound)"],
    [
      "countTokens",
      (value) => typeof value === "function",
      "a function from a message to its number of tokens",
    ],
    ["keepSystem", (value) => typeof value === "boolean", "true or false"],
    ["streaming", (value) => typeof value === "boolean", "true or false"],
  ];
  for (const [option, passes, expected] of rules) {
    const value = checked[option];
    if (value !== undefined && !passes(value)) {
      throw new InvalidOptionError(method, option, expected, describeGiven(value));
    }
  }
  return checked;
}

/** A number of 0 or more, Infinity included; NaN, negatives and numbers written as strings are not. */
function isBudget(value: unknown): value is number {
  return typeof value === "number" && value >= 0;
}

/**
 * `countTokens` with its answers checked: a count that is not a number of 0 or more (NaN from a tokenizer
 * that failed, a string) would make every budget comparison false and the view silently wrong.
 */
export function checkedTokenCounter(
  method: string,
  countTokens: (message: Message) => number,
): (message: Message) => number {
  return (message) => {
    const tokens = countTokens(message);
    if (isBudget(tokens)) return tokens;
    throw new InvalidOptionError(
      method,
      "countTokens",
      "a function that returns a number of tokens, 0 or more",
      `a function that returned ${describeGiven(tokens)} for message ${describeGiven(message.id)}`,
    );
  };
}
