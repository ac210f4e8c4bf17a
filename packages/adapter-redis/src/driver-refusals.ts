import {
  ConcurrencyError,
  ConflictError,
  type Message,
  SkeinError,
  ThreadNotFoundError,
} from "@skein/thread-core";
import { HeadMovedError, importConflicts, type LogChange } from "@skein/thread-core/driver";

const source = { source: "adapter-redis" };

/** The error for a `putState` the script refused; nothing was written. */
export function stateRefusal(id: string, ifRevision: number | undefined, reply: unknown[]): SkeinError {
  if (reply[0] === "concurrency")
    return new ConcurrencyError(id, ifRevision as number, Number(reply[1]), source);
  return new ConflictError(
    `Thread ${JSON.stringify(id)} is a local thread of this store; its state is its log.`,
    undefined,
    source,
  );
}

/** The error for an `importSegment` the script refused; nothing was written. */
export function importRefusal(
  segmentId: string,
  from: number,
  messages: Message[],
  reply: unknown[],
): SkeinError {
  const offset = Number(reply[1]);
  const messageId = messages[offset - from]?.id;
  const refuse = importConflicts(segmentId, source.source);
  switch (reply[0]) {
    case "missing":
      return refuse.missingStart(from);
    case "other":
      return refuse.otherMessage(offset, messageId as string);
    case "gap":
      return refuse.gap(offset, messageId);
    case "live":
      return refuse.liveHead();
    default:
      return refuse.twice(messageId as string);
  }
}

/** The error for a commit the script refused; nothing was written. */
export function commitRefusal(threadId: string, change: LogChange, reply: unknown[]): SkeinError {
  switch (reply[0]) {
    case "notfound":
      return new ThreadNotFoundError(threadId, source);
    case "concurrency":
      return new ConcurrencyError(threadId, change.ifRevision as number, Number(reply[1]), source);
    case "headmoved":
      return new HeadMovedError(threadId, source);
    default:
      return new SkeinError(`Redis answered a commit with ${JSON.stringify(String(reply[0]))}.`, source);
  }
}
