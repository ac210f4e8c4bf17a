const marker = Symbol.for("skein.error");

/** Options every skein error takes: the cause and the package that raised it. */
export interface SkeinErrorOptions {
  cause?: unknown;
  /** The package that raised the error; the message is prefixed with it, as `[thread-core] …`. */
  source?: string;
}

/** The symbol an instance carries for one marker of its class chain; `Symbol.for`, so every copy agrees. */
function markerSymbol(marker: string): symbol {
  return Symbol.for(`skein.error:${marker}`);
}

function mark(error: Error, marker: string): void {
  Object.defineProperty(error, markerSymbol(marker), { value: true });
}

/** What `SkeinError` reads from a class: its own marker, and the markers of families it also belongs to. */
interface ErrorClass {
  readonly marker: string;
  readonly alsoMarkers?: readonly string[];
}

/**
 * The base of every error skein throws. Check with `SkeinError.isInstance(e)` (or `ThreadNotFoundError.isInstance(e)`,
 * …), which works across duplicate installs of skein's packages, unlike `instanceof`.
 *
 * Every class sets its identity explicitly: `static override readonly marker: string = "skein.<package>.<Name>"`. A
 * minifier renames classes, so identity never comes from the class name; the marker's last segment is the
 * error's `name`. An instance carries one marker per class of its chain, so `X.isInstance` counts subclasses.
 */
export class SkeinError extends Error {
  /** This class's stable identity, unique across skein's packages: `skein.<package>.<Name>`. */
  static readonly marker: string = "skein.thread-core.SkeinError";
  /**
   * Markers of other families this class belongs to without extending them: an adapter's not-found error
   * extends `ThreadNotFoundError` and is a `ServiceError` too.
   */
  static readonly alsoMarkers?: readonly string[];

  readonly [marker] = true;
  readonly source: string;

  constructor(message: string, options: SkeinErrorOptions = {}) {
    const source = options.source ?? "thread-core";
    super(`[${source}] ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    const own = Object.hasOwn(new.target, "marker") ? (new.target as ErrorClass).marker : undefined;
    // A subclass declared outside skein without a marker keeps its class name: the best there is for it.
    this.name = own === undefined ? new.target.name : own.slice(own.lastIndexOf(".") + 1);
    this.source = source;
    let type: unknown = new.target;
    while (typeof type === "function" && type !== Error) {
      if (Object.hasOwn(type, "marker")) mark(this, (type as unknown as ErrorClass).marker);
      if (Object.hasOwn(type, "alsoMarkers")) {
        for (const also of (type as unknown as ErrorClass).alsoMarkers ?? []) mark(this, also);
      }
      type = Object.getPrototypeOf(type);
    }
  }

  /** `instanceof` that also works across duplicate installs and counts subclasses: `ThreadNotFoundError.isInstance(error)`. */
  static isInstance<Instance>(
    this: abstract new (
      ...args: never[]
    ) => Instance,
    value: unknown,
  ): value is Instance {
    if (typeof value !== "object" || value === null || (value as Record<symbol, unknown>)[marker] !== true) {
      return false;
    }
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class isInstance was called on; that is the point
    const type = this as unknown as ErrorClass & (abstract new (...args: never[]) => Instance);
    if (type.marker === SkeinError.marker) return true;
    // A class without a marker of its own is known to its own copy only.
    if (!Object.hasOwn(type, "marker")) return value instanceof type;
    return (value as Record<symbol, unknown>)[markerSymbol(type.marker)] === true;
  }
}

/** A JSON document is not a valid thread state: `path` points at the offending value. */
export class InvalidThreadStateError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.InvalidThreadStateError";
  constructor(
    readonly detail: string,
    readonly path: ReadonlyArray<string | number> = [],
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid thread state${path.length ? ` at ${formatPath(path)}` : ""}: ${detail}`, options);
  }
}

/** A message is not valid: `path` points at the offending value. */
export class InvalidMessageError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.InvalidMessageError";
  constructor(
    readonly detail: string,
    readonly path: ReadonlyArray<string | number> = [],
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid message${path.length ? ` at ${formatPath(path)}` : ""}: ${detail}`, options);
  }
}

/** A thread id that is empty, too long or holds control characters. */
export class InvalidThreadIdError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.InvalidThreadIdError";
  constructor(
    readonly reason: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid thread id: ${reason}. Ids are 1–256 characters with no control characters.`, options);
  }
}

/** `$type` names no registered thread type. `packageName` says what to install for skein's own types. */
export class UnknownThreadTypeError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.UnknownThreadTypeError";
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

/** A second registration of a type id in one registry; the first stays. */
export class DuplicateThreadTypeError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.DuplicateThreadTypeError";
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
  static override readonly marker: string = "skein.thread-core.ThreadTypeClashError";
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
  static override readonly marker: string = "skein.thread-core.InvalidTypeDefinitionError";
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
  static override readonly marker: string = "skein.thread-core.UnsupportedVersionError";
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
  static override readonly marker: string = "skein.thread-core.UnsupportedOperationError";
  constructor(
    readonly type: string,
    readonly capability: string,
    detail?: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Thread type "${type}" does not support ${capability}${detail ? `: ${detail}` : "."}`, options);
  }
}

/** No thread has this id (in this store and scope). */
export class ThreadNotFoundError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.ThreadNotFoundError";
  constructor(
    readonly threadId: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Thread ${JSON.stringify(threadId)} was not found.`, options);
  }
}

/** `store.create` or an import under an id that is already taken; nothing was written. */
export class ThreadExistsError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.ThreadExistsError";
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
  static override readonly marker: string = "skein.thread-core.ConflictError";
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
  static override readonly marker: string = "skein.thread-core.ConcurrencyError";
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

/**
 * A change under `ifRevision` found the thread replaced since that revision was read: deleted and made again
 * under the same id (its revisions start over, so the number alone can match), or moved to another history.
 * Nothing was written. Re-read the thread (its configuration may differ) and retry.
 */
export class ThreadReplacedError extends ConcurrencyError {
  static override readonly marker: string = "skein.thread-core.ThreadReplacedError";
  constructor(threadId: string, expectedRevision: number, options?: SkeinErrorOptions) {
    super(threadId, expectedRevision, expectedRevision, options);
    this.message = `[${this.source}] Thread ${JSON.stringify(threadId)} was replaced (deleted and made again, or moved to another history) since revision ${expectedRevision} was read; nothing was written. Read it again and retry.`;
  }
}

/** A checkpoint id or message id given to rollback, fork, at or messages is not in the thread. */
export class PointNotFoundError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.PointNotFoundError";
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

/** A store URL that cannot be opened as written; `detail` says why. */
export class InvalidStoreUrlError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.InvalidStoreUrlError";
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
  static override readonly marker: string = "skein.thread-core.AdapterNotInstalledError";
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
  static override readonly marker: string = "skein.thread-core.StoreUnavailableError";
  readonly retryable = true;
}

/** An operation on a store after `store.close()`. */
export class StoreClosedError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.StoreClosedError";
  constructor(options?: SkeinErrorOptions) {
    super("The store is closed.", options);
  }
}

/** `store.list` was given a `limit` or `cursor` it cannot use; nothing was read. */
export class InvalidListOptionsError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.InvalidListOptionsError";
  constructor(
    readonly option: "limit" | "cursor" | "owner" | "where" | "order" | "direction",
    readonly detail: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid list ${option}: ${detail}`, options);
  }
}

/**
 * A thread or store method was given an argument or option it cannot use (`ifRevision: "abc"`,
 * `view({ maxTokens: -1 })`, `rollback(undefined)`): `expected` says what it takes. Nothing was read or written.
 */
export class InvalidOptionError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.InvalidOptionError";
  constructor(
    /** The method, as `thread.view` or `store.save`. */
    readonly method: string,
    /** The option or argument, as `maxTokens` or `target`. */
    readonly option: string,
    /** What the option takes, in words. */
    readonly expected: string,
    /** How the value given is shown: its kind, or the value itself quoted and cut short. */
    readonly given: string,
    options?: SkeinErrorOptions,
  ) {
    super(`${method}: ${option} is ${given}; expected ${expected}. Nothing was read or written.`, options);
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
  static override readonly marker: string = "skein.thread-core.PartialAppendError";
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
  static override readonly marker: string = "skein.thread-core.HeadMovedError";
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
  static override readonly marker: string = "skein.thread-core.UnsupportedRunConfigError";
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
  static override readonly marker: string = "skein.thread-core.MessageTooLargeError";
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
  static override readonly marker: string = "skein.thread-core.InvalidOperationIdError";
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
