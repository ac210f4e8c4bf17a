import { ConflictError, type Message, messageFingerprint } from "@skein/thread-core";
import { SOURCE } from "./errors.js";
import type { SegmentLog } from "./segment-log.js";

export interface AppendItem {
  message: Message;
  fingerprint: string;
}

/**
 * Which appended items are new and which repeat a message already among the head's first `count` or earlier
 * in the batch: an equal repeat is skipped, a different one is a `ConflictError`, thrown before anything
 * is written. `stored` gives every item as it is (or will be) stored, in input order.
 */
export async function planAppend(
  head: SegmentLog | undefined,
  count: number,
  items: AppendItem[],
): Promise<{ fresh: AppendItem[]; stored: Message[] }> {
  const found = head
    ? await head.locate(
        items.map((item) => item.message.id),
        count,
      )
    : [];
  const batch = new Map<string, AppendItem>();
  const fresh: AppendItem[] = [];
  const stored: Message[] = [];
  for (const [index, item] of items.entries()) {
    const existing = found[index];
    const earlier = batch.get(item.message.id);
    const fingerprint = existing ? messageFingerprint(existing.message) : earlier?.fingerprint;
    if (fingerprint !== undefined && fingerprint !== item.fingerprint) {
      throw new ConflictError(
        `Message ${JSON.stringify(item.message.id)} is already in the thread with other content; nothing was written.`,
        item.message.id,
        { source: SOURCE },
      );
    }
    if (existing) stored.push(existing.message);
    else if (earlier) stored.push(asStored(earlier.message));
    else {
      batch.set(item.message.id, item);
      fresh.push(item);
      stored.push(asStored(item.message));
    }
  }
  return { fresh, stored };
}

/** A message as it reads back from its JSON line. */
function asStored(message: Message): Message {
  return JSON.parse(JSON.stringify(message)) as Message;
}
