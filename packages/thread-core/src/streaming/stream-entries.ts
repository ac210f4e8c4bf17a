import { isPlainObject } from "../json.js";
import type { Role } from "../spec/message.js";

/**
 * Where a local thread keeps the replies that stream into it: one reserved key of the record's context, as
 * the owner and title are kept (`$catalogue`), so beginning, renewing and ending a reply are ordinary atomic
 * commits of the record on every store, and readers of every process see them. The thread's `context`, its
 * exports and its forks never show it. A reply's deltas are not here: they are in its own segment.
 */
export const STREAMS_KEY = "$streams";

/** One reply that streams into a thread. */
export interface StreamEntry {
  /** The message's id. */
  id: string;
  role: Role;
  authorName?: string;
  createdAt: string;
  /** The segment that holds the reply's batches of deltas, one message per batch. */
  segment: string;
  /** Who writes it: a random token, so a writer whose lease lapsed never ends a reply settled by a reader. */
  writer: string;
  /**
   * When the writer's lease lapses, in milliseconds since the epoch, unless the writer wrote a batch into
   * the reply's segment since (see stream-leases.ts): the lease as `beginMessage` set it, never renewed here.
   */
  leaseUntil: number;
  /** How long each batch the writer writes extends its lease; absent in entries whose writer renewed them here. */
  leaseMs?: number;
}

/** The streaming replies a record's context holds; a malformed entry reads as absent. */
export function streamsOf(context: Readonly<Record<string, unknown>>): StreamEntry[] {
  const stored = context[STREAMS_KEY];
  if (!Array.isArray(stored)) return [];
  return stored.filter(
    (entry): entry is StreamEntry =>
      isPlainObject(entry) &&
      typeof entry.id === "string" &&
      typeof entry.segment === "string" &&
      typeof entry.writer === "string" &&
      typeof entry.leaseUntil === "number" &&
      typeof entry.createdAt === "string" &&
      typeof entry.role === "string",
  );
}

/** `context` holding `entries` under the reserved key (the key removed when there are none). */
export function withStreams(
  context: Readonly<Record<string, unknown>>,
  entries: StreamEntry[],
): Record<string, unknown> {
  const { [STREAMS_KEY]: _previous, ...rest } = context;
  return entries.length === 0 ? rest : { ...rest, [STREAMS_KEY]: entries.map((entry) => ({ ...entry })) };
}

/**
 * The entries whose lease, as `beginMessage` set it, ran out by `now`: those that may have lapsed (their
 * writers may have renewed them since, `leaseLapsed` tells).
 */
export function lapsedStreams(context: Readonly<Record<string, unknown>>, now = Date.now()): StreamEntry[] {
  return streamsOf(context).filter((entry) => entry.leaseUntil <= now);
}
