import { EXIT_CODES, type ExitCode } from "./exit-codes.js";

/** An error the CLI raises itself, carrying the exit code it ends with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CliError";
  }
}

/** The command line is wrong: exit code 2, with a hint to the command's help. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.usage);
    this.name = "UsageError";
  }
}
