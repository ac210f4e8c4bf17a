import { CliError } from "./cli-error.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";

/**
 * The config file (`skein.config.json`, `--config`, `SKEIN_CONFIG`) is missing, is not JSON, or holds
 * something the CLI does not take, naming the file and what to fix. It exits as any input file would
 * (never 2, which is the command line's): 3 when the file named is not there, 1 when the system refuses to
 * read it (`EACCES`, …), 5 when it is not JSON or not a config. `kind` names what the file is in the message
 * (default `"config file"`; a keys file's error says `"keys file"`).
 */
export class InvalidConfigError extends CliError {
  static override readonly marker: string = "skein.cli.InvalidConfigError";

  constructor(
    readonly file: string,
    readonly detail: string,
    options?: { cause?: unknown; kind?: string },
  ) {
    super(
      `${options?.kind ?? "config file"} ${file} cannot be used: ${detail}`,
      configExitCode(options?.cause),
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
  }
}

function configExitCode(cause: unknown): ExitCode {
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (code === "ENOENT") return EXIT_CODES.notFound;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? EXIT_CODES.failure : EXIT_CODES.invalidData;
}

/**
 * A store package the config file names cannot be loaded, naming the package, the file, and how to install
 * it: exit code 6, as a store URL's adapter package that is not installed.
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
      EXIT_CODES.store,
      options,
    );
  }
}
