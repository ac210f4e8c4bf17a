const marker = Symbol.for("skein.error");

export interface SkeinErrorOptions {
  cause?: unknown;
  /** The package that raised the error; the message is prefixed with it, as `[thread-core] …`. */
  source?: string;
}

/**
 * The base of every error skein throws. Check with `SkeinError.isInstance(e)`, which works across
 * duplicate installs of thread-core, unlike `instanceof`.
 */
export class SkeinError extends Error {
  readonly [marker] = true;
  readonly source: string;

  constructor(message: string, options: SkeinErrorOptions = {}) {
    const source = options.source ?? "thread-core";
    super(`[${source}] ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.source = source;
    // One marker per class in the chain, so `ConflictError.isInstance(e)` works across duplicate installs too.
    let type: { name: string } | null = new.target;
    while (type && (type as unknown) !== Error) {
      Object.defineProperty(this, classMarker(type.name), { value: true });
      type = Object.getPrototypeOf(type);
    }
  }

  /** `instanceof` that also works across duplicate installs: `ThreadNotFoundError.isInstance(error)`. */
  static isInstance<Instance>(
    this: abstract new (
      ...args: never[]
    ) => Instance,
    value: unknown,
  ): value is Instance {
    if (typeof value !== "object" || value === null || (value as Record<symbol, unknown>)[marker] !== true) {
      return false;
    }
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass isInstance was called on; that is the point
    const type = this as { name: string };
    return type === SkeinError || (value as Record<symbol, unknown>)[classMarker(type.name)] === true;
  }
}

function classMarker(name: string): symbol {
  return Symbol.for(`skein.error:${name}`);
}

/** A JSON document is not a valid thread state: `path` points at the offending value. */
export class InvalidThreadStateError extends SkeinError {
  constructor(
    readonly detail: string,
    readonly path: ReadonlyArray<string | number> = [],
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid thread state${path.length ? ` at ${formatPath(path)}` : ""}: ${detail}`, options);
  }
}

export class InvalidMessageError extends SkeinError {
  constructor(
    readonly detail: string,
    readonly path: ReadonlyArray<string | number> = [],
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid message${path.length ? ` at ${formatPath(path)}` : ""}: ${detail}`, options);
  }
}

export class InvalidThreadIdError extends SkeinError {
  constructor(
    readonly reason: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid thread id: ${reason}. Ids are 1–256 characters with no control characters.`, options);
  }
}

/** `$type` names no registered thread type. `packageName` says what to install for skein's own types. */
export class UnknownThreadTypeError extends SkeinError {
  constructor(
    readonly type: string,
    readonly packageName?: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      packageName
        ? `Unknown thread type ${quoteUntrusted(type)}: install and register its adapter (npm install ${packageName}), or parse with { unknown: "preserve" }.`
        : `Unknown thread type ${quoteUntrusted(type)}: register it with registry.register(defineThreadType(…)), or parse with { unknown: "preserve" }.`,
      options,
    );
  }
}

export class DuplicateThreadTypeError extends SkeinError {
  constructor(
    readonly type: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Thread type "${type}" is already registered; each type id is registered once per registry.`,
      options,
    );
  }
}

/**
 * A type id that belongs to someone else: one of skein's own (`memory`, `redis`, …), or in a namespace
 * (`openai.`, `acme.`) that another package's types hold.
 */
export class ThreadTypeClashError extends SkeinError {
  constructor(
    readonly type: string,
    readonly owner: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Type ${quoteUntrusted(type)} clashes with ${owner}; give your type an id in a namespace of your own (acme.ticket).`,
      options,
    );
  }
}

/**
 * A `defineThreadType` or `defineStateType` definition that cannot work: no type id, a version that is not
 * a positive integer, a missing migration, or options that contradict each other. Nothing was defined.
 */
export class InvalidTypeDefinitionError extends SkeinError {
  constructor(
    readonly type: string,
    readonly detail: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Type definition ${quoteUntrusted(type)} is invalid: ${detail}`, options);
  }
}

/** A state's `$v` is newer than the installed definition of its type knows how to read. */
export class UnsupportedVersionError extends SkeinError {
  constructor(
    readonly type: string,
    readonly version: number,
    readonly supportedVersion: number,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Thread type "${type}" version ${version} is newer than this reader supports (${supportedVersion}); upgrade the package that defines it.`,
      options,
    );
  }
}

/** The thread type cannot do this; nothing was changed. */
export class UnsupportedOperationError extends SkeinError {
  constructor(
    readonly type: string,
    readonly capability: string,
    detail?: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Thread type "${type}" does not support ${capability}${detail ? `: ${detail}` : "."}`, options);
  }
}

export class ThreadNotFoundError extends SkeinError {
  constructor(
    readonly threadId: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Thread ${JSON.stringify(threadId)} was not found.`, options);
  }
}

export class ThreadExistsError extends SkeinError {
  constructor(
    readonly threadId: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Thread ${JSON.stringify(threadId)} already exists; choose another id or open the existing one.`,
      options,
    );
  }
}

/** A message id was re-sent with different content, or an import disagrees with what is stored. */
export class ConflictError extends SkeinError {
  constructor(
    readonly detail: string,
    readonly messageId?: string,
    options?: SkeinErrorOptions,
  ) {
    super(detail, options);
  }
}

/** `ifRevision` did not match: the thread moved on and nothing was written. Re-read and retry. */
export class ConcurrencyError extends SkeinError {
  constructor(
    readonly threadId: string,
    readonly expectedRevision: number,
    readonly actualRevision: number,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Thread ${JSON.stringify(threadId)} is at revision ${actualRevision}, not ${expectedRevision}; nothing was written. Read it again and retry.`,
      options,
    );
  }
}

/** A checkpoint id or message id given to rollback, fork, at or messages is not in the thread. */
export class PointNotFoundError extends SkeinError {
  constructor(
    readonly threadId: string,
    readonly point: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Thread ${JSON.stringify(threadId)} has no checkpoint or message ${JSON.stringify(point)}.`,
      options,
    );
  }
}

export class InvalidStoreUrlError extends SkeinError {
  constructor(
    readonly url: string,
    readonly detail: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid store URL "${url}": ${detail}`, options);
  }
}

/** The store URL's scheme needs an adapter package that is not installed. */
export class AdapterNotInstalledError extends SkeinError {
  constructor(
    readonly packageName: string,
    readonly scheme: string,
    options?: SkeinErrorOptions,
  ) {
    super(`"${scheme}:" stores need ${packageName}: npm install ${packageName}`, options);
  }
}

/** The backend did not answer or failed; the operation may be retried. */
export class StoreUnavailableError extends SkeinError {
  readonly retryable = true;
}

export class StoreClosedError extends SkeinError {
  constructor(options?: SkeinErrorOptions) {
    super("The store is closed.", options);
  }
}

/** `store.list` was given a `limit` or `cursor` it cannot use; nothing was read. */
export class InvalidListOptionsError extends SkeinError {
  constructor(
    readonly option: "limit" | "cursor",
    readonly detail: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid list ${option}: ${detail}`, options);
  }
}

/**
 * Untrusted text for an error message: quoted, control characters escaped, at most `limit` characters, so a
 * hostile document can neither flood a log line nor send terminal escapes through it.
 */
export function quoteUntrusted(text: unknown, limit = 120): string {
  const value = String(text);
  const shown = value.length > limit ? `${value.slice(0, limit)}…` : value;
  return JSON.stringify(shown).replace(
    /[\u007f-\u009f]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function formatPath(path: ReadonlyArray<string | number>): string {
  return path
    .map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`))
    .join("")
    .replace(/^\./, "");
}

/**
 * An append to a remote thread needed more than one request and a later one failed: `appended` holds what
 * landed, in order; `notAppended` items (service items, not messages) were not written. Services without a
 * multi-request transaction make this the one way an append is not all-or-nothing.
 */
export class PartialAppendError extends SkeinError {
  constructor(
    readonly threadId: string,
    readonly appended: ReadonlyArray<{ id: string }>,
    readonly notAppended: number,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Appending to thread ${JSON.stringify(threadId)} stopped after ${appended.length} message(s); ${notAppended} item(s) were not written. Append those again.`,
      options,
    );
  }
}

/** A log driver's answer when a commit expected another head segment: the caller re-reads and retries. */
export class HeadMovedError extends SkeinError {
  constructor(
    readonly threadId: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Thread ${JSON.stringify(threadId)} moved to another segment during the change.`, options);
  }
}

/**
 * A runner cannot honour these run settings on this thread type (`type`): the run is refused before any
 * request, rather than the settings silently dropped. `settings` are `RunConfig` keys.
 */
export class UnsupportedRunConfigError extends UnsupportedOperationError {
  constructor(
    type: string,
    readonly settings: readonly string[],
    detail: string,
    options?: SkeinErrorOptions,
  ) {
    super(type, `the run setting${settings.length === 1 ? "" : "s"} ${settings.join(", ")}`, detail, options);
  }
}

/**
 * One message of a run's input needs more than the run's `maxInputTokens` on its own (with the system
 * messages that always go with it), so no request could stay within the budget; nothing was sent.
 */
export class MessageTooLargeError extends SkeinError {
  constructor(
    readonly threadId: string,
    readonly messageId: string,
    /** The input the message needs, in tokens as the runner counts them. */
    readonly tokens: number,
    readonly maxInputTokens: number,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Message ${quoteUntrusted(messageId)} of thread ${quoteUntrusted(threadId)} needs about ${tokens} tokens of input, more than maxInputTokens (${maxInputTokens}) allows; nothing was sent. Shorten or split the message, or raise maxInputTokens.`,
      options,
    );
  }
}

/** An `operationId` that is not 1–256 characters of text; nothing was written. */
export class InvalidOperationIdError extends SkeinError {
  constructor(
    readonly operationId: unknown,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Invalid operation id ${quoteUntrusted(operationId, 40)}: use a string of 1–256 characters, the same for each retry of one change.`,
      options,
    );
  }
}
