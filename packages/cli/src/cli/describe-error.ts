import { SkeinError } from "@skein/thread-core";
import { CliError } from "./cli-error.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";

const EXIT_CODE_BY_ERROR_NAME: Readonly<Record<string, ExitCode>> = {
  ThreadNotFoundError: EXIT_CODES.notFound,
  PointNotFoundError: EXIT_CODES.notFound,
  ThreadExistsError: EXIT_CODES.conflict,
  ConflictError: EXIT_CODES.conflict,
  ConcurrencyError: EXIT_CODES.conflict,
  HeadMovedError: EXIT_CODES.conflict,
  InvalidThreadStateError: EXIT_CODES.invalidData,
  InvalidMessageError: EXIT_CODES.invalidData,
  InvalidThreadIdError: EXIT_CODES.invalidData,
  UnknownThreadTypeError: EXIT_CODES.invalidData,
  UnsupportedVersionError: EXIT_CODES.invalidData,
  InvalidStoreUrlError: EXIT_CODES.store,
  AdapterNotInstalledError: EXIT_CODES.store,
  StoreUnavailableError: EXIT_CODES.store,
  StoreClosedError: EXIT_CODES.store,
};

/** Errors from sockets and DNS that mean "the backend cannot be reached". */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
]);

/**
 * The one line a failure prints on stderr, and the exit code it ends with. `secrets` (passwords of the
 * store URLs in play) never appear in the line, whatever the error's message holds.
 */
export function describeError(
  error: unknown,
  secrets: readonly string[] = [],
): { line: string; exitCode: ExitCode } {
  const exitCode = exitCodeOf(error);
  const message = error instanceof Error ? error.message || error.name : String(error);
  return { line: terminalSafe(redactSecrets(message.replace(/\s*\n\s*/g, " ").trim(), secrets)), exitCode };
}

/** At most this many characters of an error line: one line, whatever a hostile file makes an error say. */
const MAX_LINE = 500;

/** One short line with no control characters, so a hostile input cannot drive the terminal or flood it. */
function terminalSafe(line: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const clean = line.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return clean.length > MAX_LINE ? `${clean.slice(0, MAX_LINE)}…` : clean;
}

function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (SkeinError.isInstance(error)) return EXIT_CODE_BY_ERROR_NAME[error.name] ?? EXIT_CODES.failure;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return EXIT_CODES.store;
  // thread-core's list() says so when handed a cursor it did not make.
  if (error instanceof RangeError) return EXIT_CODES.usage;
  return EXIT_CODES.failure;
}

/** Removes passwords: every known secret, and anything in the `user:password@` part of a URL. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text.replace(/(\/\/[^:/@\s]*):[^@/\s]+@/g, "$1:***@");
  for (const secret of secrets) {
    if (secret.length > 0) redacted = redacted.split(secret).join("***");
  }
  return redacted;
}

/** The passwords in store URLs, raw and percent-decoded, for `describeError`. */
export function urlSecrets(urls: ReadonlyArray<string | undefined>): string[] {
  const secrets: string[] = [];
  for (const url of urls) {
    if (!url) continue;
    try {
      const password = new URL(url).password;
      if (password) secrets.push(password, decodeURIComponent(password));
    } catch {
      // Not a URL: thread-core reports it, with its own redaction of the user:password@ part.
    }
  }
  return secrets;
}
