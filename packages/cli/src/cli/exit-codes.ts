/** What `skein` exits with; `skein --help` lists them, scripts branch on them. */
export const EXIT_CODES = {
  ok: 0,
  /** Anything not covered below: an operation the thread type cannot do, a system error, an internal error. */
  failure: 1,
  /** Unknown command or flag, a missing or malformed argument: only ever the command line, never a store's error. */
  usage: 2,
  /** No such thread, checkpoint, message or input file, or no folder for `--out`. */
  notFound: 3,
  /**
   * The id is taken, a message id was re-sent with other content, the thread moved on, a migrate target differs,
   * or the message is on a branch that is not current (switch to it first).
   */
  conflict: 4,
  /** Input that is not valid JSON, not a valid thread state or message, or of an unknown type. */
  invalidData: 5,
  /**
   * The store URL is invalid, names no store to read (a `file:` path without one: only create, import, demo
   * and migrate's destination make a store), its adapter package is not installed, or the backend cannot
   * be reached.
   */
  store: 6,
} as const;

/** A process exit code of `skein` (one of `EXIT_CODES`). */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The exit codes as `skein --help` prints them. */
export const EXIT_CODE_HELP: ReadonlyArray<[ExitCode, string]> = [
  [EXIT_CODES.ok, "success"],
  [
    EXIT_CODES.failure,
    "failure: an operation the thread type cannot do, a system error, or an internal error (the line says so)",
  ],
  [EXIT_CODES.usage, "usage: unknown command or flag, missing or malformed argument (the command line only)"],
  [EXIT_CODES.notFound, "not found: thread, checkpoint, message, input file, or --out folder"],
  [
    EXIT_CODES.conflict,
    "conflict: id taken, message re-sent with other content, revision moved, migrate target differs, message off the current branch",
  ],
  [
    EXIT_CODES.invalidData,
    "invalid data: not JSON (with line and column), not a valid thread state or message",
  ],
  [
    EXIT_CODES.store,
    "store: invalid URL, no store at the path (create or import makes one), adapter package not installed, backend unreachable",
  ],
];
