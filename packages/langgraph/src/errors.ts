import { SkeinError, type SkeinErrorOptions } from "@skein/thread-core";

export const SOURCE = "langgraph";

type ErrorOptions = Omit<SkeinErrorOptions, "source">;

/**
 * A LangGraph `RunnableConfig` lacks what the call needs (`thread_id`, `checkpoint_id`) or holds a value of
 * the wrong type. Nothing was written.
 */
export class CheckpointConfigError extends SkeinError {
  static override readonly marker: string = "skein.langgraph.CheckpointConfigError";
  constructor(
    readonly field: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`The config's configurable.${field} ${detail}`, { ...options, source: SOURCE });
  }
}

/**
 * A checkpoint record in the store is not one this package wrote, or it points at a record that is gone:
 * the store was edited by hand or damaged. `threadId` is the skein thread that holds it.
 */
export class CheckpointRecordError extends SkeinError {
  static override readonly marker: string = "skein.langgraph.CheckpointRecordError";
  constructor(
    readonly threadId: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(
      `Thread ${JSON.stringify(threadId)} holds a checkpoint record this package cannot read: ${detail}`,
      {
        ...options,
        source: SOURCE,
      },
    );
  }
}

/**
 * A `put` of a checkpoint id the thread already holds, with different content. Skein checkpoints never
 * change in place (LangGraph's own in-memory saver would overwrite it): put the new state under a new id
 * (`uuid6()`), as LangGraph itself does. Nothing was written.
 */
export class CheckpointExistsError extends SkeinError {
  static override readonly marker: string = "skein.langgraph.CheckpointExistsError";
  constructor(
    readonly threadId: string,
    readonly checkpointId: string,
    options?: ErrorOptions,
  ) {
    super(
      `Thread ${JSON.stringify(threadId)} already holds checkpoint ${JSON.stringify(checkpointId)} with different content; checkpoints never change: put the new state under a new checkpoint id`,
      { ...options, source: SOURCE },
    );
  }
}

/** A LangChain message has a type `toLangChainMessages`/`fromLangChainMessages` cannot map without loss. */
export class MessageMappingError extends SkeinError {
  static override readonly marker: string = "skein.langgraph.MessageMappingError";
  constructor(detail: string, options?: ErrorOptions) {
    super(detail, { ...options, source: SOURCE });
  }
}

/**
 * The saver or one of its methods was called with an argument it cannot use (`argument` names it, `expected`
 * says what it takes, `received` what it got). Raised at the call, before anything is read or written, so a
 * store URL or a Promise given as the store fails at construction, not at the graph's first step.
 */
export class CheckpointerArgumentError extends SkeinError {
  static override readonly marker: string = "skein.langgraph.CheckpointerArgumentError";
  constructor(
    readonly call: string,
    readonly argument: string,
    readonly expected: string,
    readonly received: string,
    options?: ErrorOptions,
  ) {
    super(`${call} needs ${argument} to be ${expected}, not ${received}; nothing was written.`, {
      ...options,
      source: SOURCE,
    });
  }
}
