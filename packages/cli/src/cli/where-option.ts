import { UsageError } from "./cli-error.js";
import type { CommandContext } from "./command.js";

/**
 * `--where key=value` flags (repeatable) as a metadata filter. The value is read as JSON when it is JSON
 * (`archived=false`, `n=3`, `tags=["a"]`), else as the string it is (`agent=planner`); quote a string that
 * looks like JSON (`version='"1"'`).
 */
export function whereOption(context: CommandContext, name = "where"): Record<string, unknown> | undefined {
  const given = context.values[name];
  const texts = Array.isArray(given) ? given : typeof given === "string" ? [given] : [];
  if (texts.length === 0) return undefined;
  const where: Record<string, unknown> = {};
  for (const text of texts as string[]) {
    const equals = text.indexOf("=");
    if (equals <= 0) throw new UsageError(`--${name} takes key=value, not ${JSON.stringify(text)}`);
    const key = text.slice(0, equals);
    const value = text.slice(equals + 1);
    if (Object.hasOwn(where, key)) throw new UsageError(`--${name} names ${JSON.stringify(key)} twice`);
    where[key] = parseValue(value);
  }
  return where;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
