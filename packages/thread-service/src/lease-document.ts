import { createHash } from "node:crypto";
import {
  defineThreadType,
  InvalidThreadStateError,
  ThreadNotFoundError,
  type ThreadState,
  ThreadStateSchema,
  type ThreadStore,
} from "@skein/thread-core";

export const LEASE_THREAD_TYPE = "thread-service.lease";

/** Who may process a thread, kept as a small state document beside it in the same store. */
export interface LeaseState extends ThreadState {
  $type: typeof LEASE_THREAD_TYPE;
  $v: 1;
  id: string;
  /** The thread this lease is for. */
  threadId: string;
  /** The service instance holding the lease, or null when it is free. */
  holder: string | null;
  /** Grows with every write; equal to the store's revision of this document. */
  revision: number;
  /** How long the holder may go without renewing; others wait this long on an unchanged revision. */
  leaseMs: number;
  /** Wall-clock hints for people and `status()`; takeover decisions never read them. */
  renewedAt: string;
  expiresAt: string;
}

/** The id of a thread's lease document: a hash, so any valid thread id gives a short, distinct, valid id. */
export function leaseIdOf(threadId: string): string {
  return `${LEASE_THREAD_TYPE}:${createHash("sha256").update(threadId, "utf8").digest("base64url")}`;
}

/**
 * The lease document type, registered in a service's store registry so the store can read and write leases.
 * A plain state type (no `bind`): leases are read with `store.getState` and written with
 * `store.save(lease, { ifRevision })`, the store's own compare-and-set, on every backend. They hold no messages.
 */
export const leaseDocumentType = defineThreadType<LeaseState>({
  type: LEASE_THREAD_TYPE,
  version: 1,
  schema: ThreadStateSchema as never,
  packageName: "@skein/thread-service",
});

/** The thread's lease document, if there is one; `InvalidThreadStateError` if what is stored is malformed. */
export async function readLeaseDocument(
  store: ThreadStore,
  threadId: string,
): Promise<LeaseState | undefined> {
  try {
    const state = await store.getState(leaseIdOf(threadId));
    return state.$type === LEASE_THREAD_TYPE ? checkLeaseState(state as LeaseState) : undefined;
  } catch (error) {
    if (ThreadNotFoundError.isInstance(error)) return undefined;
    throw error;
  }
}

function checkLeaseState(state: LeaseState): LeaseState {
  const valid =
    typeof state.threadId === "string" &&
    (state.holder === null || typeof state.holder === "string") &&
    Number.isInteger(state.revision) &&
    state.revision >= 0 &&
    typeof state.leaseMs === "number" &&
    state.leaseMs > 0;
  if (!valid)
    throw new InvalidThreadStateError("not a thread-service lease", [], { source: "thread-service" });
  return state;
}
