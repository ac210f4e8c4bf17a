import { SkeinError } from "../errors.js";

/** Raised when a `load`/`save`/`list` callback fails or breaks its contract; `cause` holds what it threw. */
export class ThreadManagerError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.ThreadManagerError";
}
