import { type Message, messageConflict } from "@skein/thread-core";
import { SOURCE } from "./errors.js";
import type { SegmentLog } from "./segment-log.js";

/**
 * Which appended items are new and which repeat a message already among the head's first `count` or earlier
 * in the batch: an equal repeat is skipped, a different one is a `ConflictError`, thrown before anything
 * is written. `stored` gives every item as it is (or will be) stored, in input order.
 */
export async function planAppend(
  head: SegmentLog | undefined,
  count: number,
  items: Message[],
): Promise<{ fresh: Message[]; stored: Message[] }> {
  const found = head
    ? await head.locate(
        items.map((message) => message.id),
        count,
      )
    : [];
  const batch = new Map<string, Message>();
  const fresh: Message[] = [];
  const stored: Message[] = [];
  for (const [index, message] of items.entries()) {
    const existing = found[index];
    const earlier = existing?.message ?? batch.get(message.id);
    const conflict = earlier && messageConflict(earlier, message, SOURCE);
    if (conflict) throw conflict;
    if (existing) stored.push(existing.message);
    else if (earlier) stored.push(asStored(earlier));
    else {
      batch.set(message.id, message);
      fresh.push(message);
      stored.push(asStored(message));
    }
  }
  return { fresh, stored };
}

/** A message as it reads back from its JSON line. */
function asStored(message: Message): Message {
  return JSON.parse(JSON.stringify(message)) as Message;
}
