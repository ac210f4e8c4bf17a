import { FoundryConfigurationError } from "./errors.js";

/** A required, non-empty string option of `store.create(type, options)`. */
export function requireText<Options extends object>(
  type: string,
  options: Options,
  field: keyof Options & string,
): string {
  const value = (options as Record<string, unknown>)[field];
  if (typeof value === "string" && value !== "") return value;
  throw new FoundryConfigurationError(
    `store.create("${type}", { ${field} }) needs ${field} as a non-empty string; got ${value === undefined ? "none" : typeof value}.`,
  );
}
