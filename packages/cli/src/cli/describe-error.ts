import { StoreNotFoundError } from "@skein/adapter-fs";
import {
  AdapterNotInstalledError,
  ConcurrencyError,
  ConflictError,
  InvalidMessageError,
  InvalidStoreUrlError,
  InvalidThreadIdError,
  InvalidThreadStateError,
  MessageOffBranchError,
  MessageTooLargeError,
  PointNotFoundError,
  SkeinError,
  StoreClosedError,
  StoreUnavailableError,
  ThreadExistsError,
  ThreadNotFoundError,
  UnknownThreadTypeError,
  UnsupportedVersionError,
} from "@skein/thread-core";
import { HeadMovedError, redactSecrets } from "@skein/thread-core/driver";
import { visibleText } from "../format/visible-text.js";
import { CliError } from "./cli-error.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { keysFileErrorIn } from "./keys-file-error.js";

/**
 * The exit code of each kind of skein error. Asked with `isInstance`, so subclasses (an adapter's
 * `LockTimeoutError` is a `StoreUnavailableError`, `ServiceNotFoundError` a `ThreadNotFoundError`) exit as their
 * family does. Any other skein error is a failure (1).
 */
const EXIT_CODE_BY_ERROR: ReadonlyArray<[{ isInstance(value: unknown): boolean }, ExitCode]> = [
  [ThreadNotFoundError, EXIT_CODES.notFound],
  [PointNotFoundError, EXIT_CODES.notFound],
  [ThreadExistsError, EXIT_CODES.conflict],
  [ConflictError, EXIT_CODES.conflict],
  [ConcurrencyError, EXIT_CODES.conflict],
  [HeadMovedError, EXIT_CODES.conflict],
  // The thread is in a state the command cannot act on (another branch is current), as when it moved on.
  [MessageOffBranchError, EXIT_CODES.conflict],
  [InvalidThreadStateError, EXIT_CODES.invalidData],
  [InvalidMessageError, EXIT_CODES.invalidData],
  [InvalidThreadIdError, EXIT_CODES.invalidData],
  [UnknownThreadTypeError, EXIT_CODES.invalidData],
  [UnsupportedVersionError, EXIT_CODES.invalidData],
  [MessageTooLargeError, EXIT_CODES.invalidData],
  [InvalidStoreUrlError, EXIT_CODES.store],
  [AdapterNotInstalledError, EXIT_CODES.store],
  [StoreUnavailableError, EXIT_CODES.store],
  [StoreClosedError, EXIT_CODES.store],
  [StoreNotFoundError, EXIT_CODES.store],
];

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
  const reported = keysFileErrorIn(error) ?? error;
  const message = scrubbed(
    messageOf(reported)
      .replace(/\s*\n\s*/g, " ")
      .trim(),
    secrets,
  );
  return { line: terminalSafe(message), exitCode: exitCodeOf(reported) };
}

/** At most this many characters of an error line: one line, whatever a hostile file makes an error say. */
const MAX_LINE = 500;
/**
 * How much of a too-long line's end is kept. skein writes its own words after what an error says: a failed
 * import's `(2 of 5 imported before it)`, an internal error's `please report it`. A line cut at its end lost them,
 * so an import that landed threads said nothing of them; a line cut in its middle keeps them, and what failed.
 */
const KEPT_END = 120;

/** One short line with every control character shown, so a hostile input can neither drive the terminal nor flood it. */
function terminalSafe(line: string): string {
  const shown = visibleText(line);
  if (shown.length <= MAX_LINE) return shown;
  return `${shown.slice(0, MAX_LINE - KEPT_END)}…${shown.slice(-KEPT_END)}`;
}

/**
 * What the error says. Skein's errors, the CLI's own and the system's (`EACCES: permission denied, …`) speak for
 * themselves; anything else is a bug skein did not foresee, and the line says so rather than pass it off as
 * the input's fault.
 */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return `internal error: ${String(error)}; please report it`;
  // The line starts with `skein:`, which already names the CLI: its own errors drop their `[cli]` prefix.
  if (CliError.isInstance(error)) return error.message.slice(`[${error.source}] `.length) || error.name;
  if (SkeinError.isInstance(error) || hasCode(error)) {
    return error.message || error.name;
  }
  return `internal error: ${error.name}: ${error.message}; please report it with the command that caused it`;
}

/**
 * Every failure ends with a code `skein --help` documents. Exit 2 (usage) is only ever a `UsageError` the
 * command line caused: an error from the store or the input (even a `RangeError`) is never the caller's usage.
 */
function exitCodeOf(error: unknown): ExitCode {
  if (CliError.isInstance(error)) return error.exitCode;
  if (SkeinError.isInstance(error)) {
    return EXIT_CODE_BY_ERROR.find(([type]) => type.isInstance(error))?.[1] ?? EXIT_CODES.failure;
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return EXIT_CODES.store;
  return EXIT_CODES.failure;
}

function hasCode(error: Error): boolean {
  return typeof (error as { code?: unknown }).code === "string";
}

/**
 * Removes secrets: anything in the `user:password@` part of a URL, every one of `secrets` (even a store
 * password too short for thread-core's scrubbing), then through thread-core's `redactSecrets` every
 * credential a client remembered and anything shaped like one (`sk-…`, `Bearer …`, JWTs).
 */
export function scrubbed(text: string, secrets: readonly string[]): string {
  let redacted = text.replace(/(\/\/[^:/@\s]*):[^@/\s]+@/g, "$1:***@");
  for (const secret of secrets) {
    if (secret.length > 0) redacted = redacted.split(secret).join("***");
  }
  return redactSecrets(redacted, secrets);
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
