import type { HistoryEvent } from "../thread.js";

/**
 * What was built for an earlier version of a record's history that `events` continues, looked up by the last
 * event that work read. A history only grows: every driver makes a commit's events `[...known.events, event]`,
 * sharing the event objects, so an array that holds the same objects as `entry.source` at its first and last
 * places, with no more than one event after, continues it. A history read anew from storage (new objects)
 * continues nothing and is built once. A driver that rewrites an event in place (the memory store's
 * `rewriteRecord`, for a rekey) gives the last event a new object, so its history continues nothing either.
 */
export function continuedHistory<Entry extends { source: readonly HistoryEvent[] }>(
  byLastEvent: WeakMap<HistoryEvent, Entry>,
  events: readonly HistoryEvent[],
): Entry | undefined {
  for (let length = events.length; length >= Math.max(1, events.length - 1); length--) {
    const entry = byLastEvent.get(events[length - 1] as HistoryEvent);
    if (entry?.source.length === length && entry.source[0] === events[0]) return entry;
  }
  return undefined;
}
