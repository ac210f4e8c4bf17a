import { SkeinError, type SkeinErrorOptions } from "@skein/thread-core";

export const SOURCE = "openai-agents";

/**
 * A session history change that cannot be applied: the suffix a `replace_suffix` expects is not the
 * history's, or an operation id was used before for another transaction. Nothing was written.
 */
export class SessionHistoryError extends SkeinError {
  static override readonly marker: string = "skein.openai-agents.SessionHistoryError";
  constructor(message: string, options?: Omit<SkeinErrorOptions, "source">) {
    super(message, { ...options, source: SOURCE });
  }
}

/** An item holds a value a session cannot store and give back equal (a function, a class instance, `undefined` in an array). */
export class SessionItemError extends SkeinError {
  static override readonly marker: string = "skein.openai-agents.SessionItemError";
  constructor(
    readonly path: ReadonlyArray<string | number>,
    detail: string,
    options?: Omit<SkeinErrorOptions, "source">,
  ) {
    super(
      `The item value at ${path.length ? path.join(".") : "(root)"} ${detail}; nothing was written. Session items hold JSON values and Uint8Array bytes.`,
      { ...options, source: SOURCE },
    );
  }
}
