import type { HistoryEvent } from "../thread.js";
import { continuedHistory } from "./history-continuation.js";

/** An events array mapped one way, and the array it was mapped from. */
interface Mapping {
  source: readonly HistoryEvent[];
  result: HistoryEvent[];
}

/**
 * Events arrays mapped one way (a scope's segment names put on or taken off), each remembered. A history only
 * grows (see `continuedHistory`), so an array that continues one mapped before reuses that mapping's events
 * and maps only its new ones: a change costs the same however long the history is, and the events a thread
 * reads keep their identity from one record to the next (what the branch index builds on).
 */
export class MappedHistories {
  readonly #arrays = new WeakMap<readonly HistoryEvent[], HistoryEvent[]>();
  /** Each mapping by the last event of the array it mapped: an array with that event there continues it. */
  readonly #byLast = new WeakMap<HistoryEvent, Mapping>();
  /** The other way: what this side maps to, it maps back to the array it came from. */
  reverse: MappedHistories | undefined;

  map(events: HistoryEvent[], mapEvent: (event: HistoryEvent) => HistoryEvent): HistoryEvent[] {
    const known = this.#arrays.get(events);
    if (known) return known;
    const previous = continuedHistory(this.#byLast, events);
    const result = previous
      ? [...previous.result, ...events.slice(previous.source.length).map(mapEvent)]
      : events.map(mapEvent);
    // The mapping continued is superseded: kept, every prefix of a long history would hold its own two
    // arrays (memory quadratic in the history). A holder of the older array maps it anew, once.
    if (previous && previous.source !== events) {
      this.#forget(previous.source);
      if (this.reverse) this.reverse.#forget(previous.result);
    }
    this.remember(events, result);
    this.reverse?.remember(result, events);
    return result;
  }

  /** Forgets the mapping of `source` for continuations (the array's own entry goes with the array). */
  #forget(source: readonly HistoryEvent[]): void {
    const last = source[source.length - 1];
    if (last && this.#byLast.get(last)?.source === source) this.#byLast.delete(last);
  }

  /** Records that `source` maps to `result`. */
  remember(source: readonly HistoryEvent[], result: HistoryEvent[]): void {
    this.#arrays.set(source, result);
    const last = source[source.length - 1];
    if (last) this.#byLast.set(last, { source, result });
  }
}
