import { CliError } from "./cli-error.js";
import { EXIT_CODES } from "./exit-codes.js";

/**
 * The config file (`skein.config.json`, `--config`, `SKEIN_CONFIG`) is missing, is not JSON, or holds
 * something the CLI does not take: exit code 2, naming the file and what to fix.
 */
export class InvalidConfigError extends CliError {
  static override readonly marker: string = "skein.cli.InvalidConfigError";

  constructor(
    readonly file: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`config file ${file} cannot be used: ${detail}`, EXIT_CODES.usage, options);
  }
}

/**
 * A store package the config file names cannot be loaded: exit code 2, naming the package, the file, and
 * how to install it.
 */
export class AdapterLoadError extends CliError {
  static override readonly marker: string = "skein.cli.AdapterLoadError";

  constructor(
    readonly specifier: string,
    readonly file: string,
    local: boolean,
    options: { cause: unknown },
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(
      `adapter ${JSON.stringify(specifier)} in ${file} could not be loaded (${reason}); ${
        local
          ? "fix the path (relative to the config file)"
          : `install it where the config file is (npm install ${specifier}), or fix its name`
      }`,
      EXIT_CODES.usage,
      options,
    );
  }
}
