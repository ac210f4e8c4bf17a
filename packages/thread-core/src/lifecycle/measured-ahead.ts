/** How many measures run ahead of the deletes: enough to fill a networked store's pipeline, few enough to hold. */
export const MEASURE_AHEAD = 32;

/**
 * The sizes of an erasure's targets, measured a window ahead of the deletes that take them in order. The
 * deletes stay one at a time (fenced, shared forks first); only the reads a measure makes (segment infos,
 * messages) run while earlier deletes do, so a networked store answers them in shared round trips instead
 * of one wait per read. A measure's failure is the take's, as when it was measured in line.
 */
export class MeasuredAhead<Item> {
  readonly #sizes = new Map<number, Promise<number>>();
  #next = 0;

  constructor(
    readonly items: readonly Item[],
    readonly measure: (item: Item) => Promise<number>,
    readonly ahead = MEASURE_AHEAD,
  ) {}

  /** The size of `items[index]`, after starting the measures of the `ahead` items that follow it. */
  take(index: number): Promise<number> {
    while (this.#next < this.items.length && this.#next <= index + this.ahead) {
      const size = this.measure(this.items[this.#next] as Item);
      // Taken later, or never when the erasure stops first: a failure then is not an unhandled rejection.
      size.catch(() => undefined);
      this.#sizes.set(this.#next, size);
      this.#next++;
    }
    const size = this.#sizes.get(index) as Promise<number>;
    this.#sizes.delete(index);
    return size;
  }
}
