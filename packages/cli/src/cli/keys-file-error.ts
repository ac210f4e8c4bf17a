import { InvalidConfigError } from "./config-errors.js";

/**
 * A keys file (`--keys-file`, `SKEIN_KEYS_FILE`, `SKEIN_KEYS`, or an owner's file in its `owners` directory)
 * that cannot be read or holds something the CLI does not take. `file` names the file and `field` the field
 * to fix (`current`, `keys["2026-12"]`, `owners`; `""` for the file as a whole); the message never holds a key's bytes.
 * An `InvalidConfigError`, exiting as one does: 3 when the file is not there, 1 when it cannot be read, 5 when
 * it is not JSON or not a keys file.
 */
export class InvalidKeysFileError extends InvalidConfigError {
  static override readonly marker: string = "skein.cli.InvalidKeysFileError";

  constructor(
    file: string,
    readonly field: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(file, field === "" ? detail : `field ${field} ${detail}`, { ...options, kind: "keys file" });
  }
}

/**
 * The keys-file error behind `error`, if any. An owner's key file is read inside the store's key provider, and
 * thread-core reports a provider's failure as a `KeyNotFoundError` (its cause): the file and the field to fix
 * are the line worth printing, not "no key".
 */
export function keysFileErrorIn(error: unknown): InvalidKeysFileError | undefined {
  let at: unknown = error;
  // A few links at most: a cycle of causes must not hang the error line.
  for (let depth = 0; depth < 8 && at instanceof Error; depth++) {
    if (InvalidKeysFileError.isInstance(at)) return at as InvalidKeysFileError;
    at = at.cause;
  }
  return undefined;
}
