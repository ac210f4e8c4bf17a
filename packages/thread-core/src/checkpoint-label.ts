import { InvalidThreadStateError } from "./errors.js";

/** The longest checkpoint label a thread takes: a label names a point, it is not a place to keep data. */
export const MAX_CHECKPOINT_LABEL = 1_000;

/**
 * Refuses, before anything is written, a checkpoint label every store could not keep and every reader
 * could not read back: the state format has labels as strings, so a number or an object would be stored
 * and then refused by `import` (or, for a BigInt, fail half-way as a raw `TypeError`).
 */
export function assertCheckpointLabel(label: unknown): asserts label is string | undefined {
  if (label === undefined) return;
  if (typeof label !== "string") {
    const kind = label === null ? "null" : typeof label;
    throw new InvalidThreadStateError(`a checkpoint label is a string, not ${kind}`, ["checkpoint", "label"]);
  }
  if (label.length > MAX_CHECKPOINT_LABEL) {
    throw new InvalidThreadStateError(
      `a checkpoint label has at most ${MAX_CHECKPOINT_LABEL} characters, not ${label.length}`,
      ["checkpoint", "label"],
    );
  }
}
