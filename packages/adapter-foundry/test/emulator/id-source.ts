/** Ids shaped like the services' (`thread_…`, `msg_…`, `conv_…`), sortable in creation order, and the clock. */
export class IdSource {
  #counter = 0;

  next(prefix: string): string {
    this.#counter += 1;
    return `${prefix}_${this.#counter.toString(36).padStart(8, "0")}`;
  }

  /** Unix seconds, as both services timestamp their objects. */
  now(): number {
    return Math.floor(Date.now() / 1000);
  }
}
