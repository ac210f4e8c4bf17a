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
