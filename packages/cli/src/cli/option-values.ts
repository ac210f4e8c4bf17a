import { describeJsonSyntaxError } from "../input/json-syntax-error.js";
import { UsageError } from "./cli-error.js";
import type { CommandContext } from "./command.js";

/** A string flag's value, or undefined when it was not given. */
export function stringOption(context: CommandContext, name: string): string | undefined {
  const value = context.values[name];
  return typeof value === "string" ? value : undefined;
}

export function booleanOption(context: CommandContext, name: string): boolean {
  return context.values[name] === true;
}

/** An integer flag, at least `min`; a usage error for anything else. */
export function integerOption(context: CommandContext, name: string, min = 0): number | undefined {
  const text = stringOption(context, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`--${name} must be an integer of at least ${min}, not ${JSON.stringify(text)}`);
  }
  return value;
}

/** A flag holding a JSON object (`--metadata '{"user":"u-7"}'`). */
export function jsonObjectOption(context: CommandContext, name: string): Record<string, unknown> | undefined {
  const text = stringOption(context, name);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--${name} is not valid JSON: ${describeJsonSyntaxError(text)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`--${name} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** The positional argument at `index`, named `name` in the error when it is missing. */
export function requiredArgument(context: CommandContext, index: number, name: string): string {
  const value = context.positionals[index];
  if (value === undefined) throw new UsageError(`missing <${name}>`);
  return value;
}

/** Rejects positional arguments beyond the first `count`. */
export function noMoreArguments(context: CommandContext, count: number): void {
  const extra = context.positionals[count];
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
}
