import { ConflictError, type Message, messageConflict, type SegmentInfo } from "@skein/thread-core";
import { SOURCE } from "./errors.js";
import type { FsStorage } from "./fs-log-driver.js";

/**
 * Writes `messages` at own offsets `from…` of a segment that is no thread's head, creating it if absent,
 * by the rules of `LogDriver.importSegment`. Call it holding the references lock, which also keeps two
 * imports of one segment apart.
 */
export async function importSegment(
  storage: FsStorage,
  segment: SegmentInfo,
  messages: Message[],
  from: number,
): Promise<void> {
  const conflict = (detail: string, messageId?: string) =>
    new ConflictError(`Segment ${segment.id} ${detail}`, messageId, { source: SOURCE });
  const existing = await storage.segments.info(segment.id, { cached: false });
  if (!existing) {
    if (from !== 0) throw conflict(`is missing its first ${from} messages.`);
    await storage.segments.create(segment, {});
  }
  const log = storage.log(segment.id);
  const { count } = await log.tail();
  const present = await log.readMessages(from, Math.min(count, from + messages.length));
  for (const [index, message] of present.entries()) {
    const expected = messages[index] as Message;
    if (message.id !== expected.id)
      throw conflict(`holds another message at offset ${from + index}.`, expected.id);
    // The same id with other content: an import never keeps the stored text silently.
    const differs = messageConflict(message, expected, SOURCE);
    if (differs) throw differs;
  }
  const rest = messages.slice(present.length);
  if (rest.length === 0) return;
  const gap = conflict(`has a gap at ${from + present.length}.`);
  if (from + present.length !== count) throw gap;
  if (existing?.owner !== undefined) {
    const owner = await storage.records.read(existing.owner);
    if (owner?.kind === "log" && owner.head === segment.id) {
      throw conflict("is a live thread's head and cannot be extended by an import.");
    }
  }
  const tail = await log.repair();
  if (tail.count !== count) throw gap;
  await log.append(rest, { revision: 0, committedAt: Date.now(), guarded: false }, tail);
}
