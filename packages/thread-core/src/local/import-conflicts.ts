import { ConflictError } from "../errors.js";

/**
 * The refusals of `LogDriver.importSegment`, worded once for every store. Each is a `ConflictError` and
 * nothing was written.
 * @example throw importConflicts(info.id, "adapter-fs").gap(offset);
 */
export function importConflicts(segmentId: string, source: string) {
  const conflict = (detail: string, messageId?: string) =>
    new ConflictError(`Segment ${segmentId} ${detail}`, messageId, { source });
  return {
    /** A segment the store lacks, imported from an offset above 0. */
    missingStart: (from: number) => conflict(`is missing its first ${from} messages.`),
    /** The store holds another message id at an offset the import gives. */
    otherMessage: (offset: number, messageId: string) =>
      conflict(`holds another message at offset ${offset}.`, messageId),
    /** The import starts past the segment's end. */
    gap: (offset: number, messageId?: string) => conflict(`has a gap at ${offset}.`, messageId),
    /** A live thread's head only grows by that thread's appends. */
    liveHead: () => conflict("is a live thread's head and cannot be extended by an import."),
    /** The segment continues one the store does not hold. */
    missingBase: (baseId: string) => conflict(`continues ${baseId}, which is not in the store.`),
    /** The import gives one message id at two offsets of the segment. */
    twice: (messageId: string) =>
      conflict(`would hold message ${JSON.stringify(messageId)} twice.`, messageId),
  };
}
