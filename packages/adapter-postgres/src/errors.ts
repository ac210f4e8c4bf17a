import { SkeinError, StoreUnavailableError } from "@skein/thread-core";

export const SOURCE = "adapter-postgres";
export const source = { source: SOURCE };

/** The tables were written by a newer release of this package: refuse rather than misread them. */
export class UnsupportedSchemaVersionError extends SkeinError {
  static override readonly marker: string = "skein.adapter-postgres.UnsupportedSchemaVersionError";
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `The store's tables are at schema version ${found}; this @skein/adapter-postgres knows up to ${supported}. Upgrade the package.`,
      source,
    );
  }
}

/** SQLSTATEs of a transaction that lost a race and can simply run again. */
export const RETRYABLE_STATES = new Set(["40001", "40P01"]);

/** Whether an error's SQLSTATE `code` says the server cannot be used: none (a socket error), 08… or 57P…. */
function lostConnection(code: unknown): boolean {
  if (typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith("08") || code.startsWith("57P");
}

/**
 * Whether `error` left its connection unusable: a lost connection (above), or a FATAL/PANIC error, after
 * which the server closes it. Such a client goes back to the pool with the error, so that the pool drops it
 * at once rather than hand it to the next caller before its socket's end is read.
 */
export function connectionUnusable(error: unknown): boolean {
  // skein's own refusals (a lost race, a thread that exists) are thrown by the work, not the connection.
  if (SkeinError.isInstance(error)) return false;
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return lostConnection(code) || severity === "FATAL" || severity === "PANIC";
}

/**
 * An error of node-postgres as skein reports it: a lost or refused connection is a `StoreUnavailableError`
 * (retryable); a server error keeps its SQLSTATE in the message. Never the connection string.
 */
export function postgresError(error: unknown, displayUrl: string): Error {
  if (SkeinError.isInstance(error)) return error;
  const { code, message } = error as { code?: string; message?: string };
  if (!lostConnection(code)) {
    return new SkeinError(`PostgreSQL at ${displayUrl} refused a statement (${code}): ${message}`, {
      ...source,
      cause: error,
    });
  }
  return new StoreUnavailableError(
    `PostgreSQL at ${displayUrl} is unavailable: ${message ?? String(error)}`,
    {
      ...source,
      cause: error,
    },
  );
}
