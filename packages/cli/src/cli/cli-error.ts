import { SkeinError } from "@skein/thread-core";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";

/** The package named at the start of the CLI's own error messages, as every package's errors do. */
export const SOURCE = "cli";

/**
 * An error the CLI raises itself, carrying the exit code it ends with. A `SkeinError`, so programs that call
 * `runCli` or `migrateThreads` check it as they check any other: `CliError.isInstance(error)`.
 */
export class CliError extends SkeinError {
  static override readonly marker: string = "skein.cli.CliError";

  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options?: { cause?: unknown },
  ) {
    super(message, { source: SOURCE, ...(options?.cause === undefined ? {} : { cause: options.cause }) });
  }
}

/** The command line is wrong: exit code 2, with a hint to the command's help. */
export class UsageError extends CliError {
  static override readonly marker: string = "skein.cli.UsageError";

  constructor(message: string) {
    super(message, EXIT_CODES.usage);
  }
}

/**
 * A program called the CLI's API (`runCli`, `migrateThreads`) with an argument of the wrong kind: exit code 2
 * when it ends a run. `argument` names the parameter, `expected` what it takes.
 */
export class InvalidArgumentError extends CliError {
  static override readonly marker: string = "skein.cli.InvalidArgumentError";

  constructor(
    readonly argument: string,
    readonly expected: string,
    given: unknown,
  ) {
    super(`${argument} must be ${expected}; it was ${kindOf(given)}`, EXIT_CODES.usage);
  }
}

/** What a wrong argument was, without its value (a string may hold a password). */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array holding something other than strings";
  if (typeof value === "object") return `an object (${value.constructor?.name ?? "without a prototype"})`;
  return `a ${typeof value}`;
}
