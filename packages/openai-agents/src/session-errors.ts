import { SkeinError, type SkeinErrorOptions } from "@skein/thread-core";

export const SOURCE = "openai-agents";

/**
 * A session history change that cannot be applied: the suffix a `replace_suffix` expects is not the
 * history's, an operation id was used before for another transaction, or the transaction is not one the
 * SDK defines. Nothing was written.
 */
export class SessionHistoryError extends SkeinError {
  static override readonly marker: string = "skein.openai-agents.SessionHistoryError";
  constructor(message: string, options?: Omit<SkeinErrorOptions, "source">) {
    super(message, { ...options, source: SOURCE });
  }
}

/**
 * An item a session cannot store and give back equal (not an object, a function, a class instance, a cycle,
 * a hole in the list, `undefined` in an array), or a list of items that is not an array. Nothing was written.
 */
export class SessionItemError extends SkeinError {
  static override readonly marker: string = "skein.openai-agents.SessionItemError";
  /** The index of the item at fault in the list it came in, when the fault is inside one item. */
  readonly itemIndex: number | undefined;
  constructor(
    /** Where the value is: the list's name (`items`, `expectedSuffix`, `replacement`), the item's index, then its fields. */
    readonly path: ReadonlyArray<string | number>,
    detail: string,
    options?: Omit<SkeinErrorOptions, "source">,
  ) {
    const where = path.length ? ` at ${path.join(".")}` : "";
    super(
      `The session item value${where} ${detail}; nothing was written. Session items are objects holding JSON values and Uint8Array bytes.`,
      { ...options, source: SOURCE },
    );
    this.itemIndex = path.find((step): step is number => typeof step === "number");
  }
}

/** `createSkeinSession` was given options it cannot use; the message says what it expects. */
export class SessionOptionsError extends SkeinError {
  static override readonly marker: string = "skein.openai-agents.SessionOptionsError";
  constructor(message: string, options?: Omit<SkeinErrorOptions, "source">) {
    super(message, { ...options, source: SOURCE });
  }
}
