import type { Message } from "@skein/thread-core";
import { CorruptStoreError } from "../errors.js";
import type { SegmentDirectories } from "./segment-directories.js";
import type { SegmentLog } from "./segment-log.js";

/**
 * Whether segment `id` may have been written unflushed (`SegmentWriteOptions.interim`, a streamed reply's
 * batches), so that a power loss may have cut its files short or garbled them: its `segment.json` says so,
 * or is missing or unreadable, which a segment made durably never is once anything was written into it.
 */
export async function mayBeInterim(segments: SegmentDirectories, id: string): Promise<boolean> {
  try {
    const info = await segments.info(id, { cached: false });
    return info === undefined || info.interim === true;
  } catch (error) {
    if (CorruptStoreError.isInstance(error)) return true;
    throw error;
  }
}

/**
 * Messages [from, to) of an interim segment up to the first one that does not read: what a power loss left of
 * a streamed reply's batches is read as the batches before it, as a killed writer's would be. Read one by
 * one, which only a damaged segment (a few batches) ever costs.
 */
export async function readInterimPrefix(log: SegmentLog, from: number, to: number): Promise<Message[]> {
  const messages: Message[] = [];
  for (let offset = Math.max(0, from); offset < to; offset++) {
    let read: Message[];
    try {
      read = await log.readMessages(offset, offset + 1);
    } catch (error) {
      if (CorruptStoreError.isInstance(error)) break;
      throw error;
    }
    const [message] = read;
    if (!message) break;
    messages.push(message);
  }
  return messages;
}
