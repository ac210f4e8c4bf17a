import { createHash } from "node:crypto";
import {
  defineThreadType,
  InvalidThreadStateError,
  type Message,
  type Thread,
  type ThreadCapabilities,
  type ThreadState,
  ThreadStateSchema,
  type ThreadStore,
  UnsupportedOperationError,
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

const NO_CAPABILITIES: ThreadCapabilities = Object.freeze({
  fork: "none",
  checkpoints: false,
  rollback: false,
  timeTravel: false,
  views: false,
  revisions: true,
});

/**
 * A lease document bound as a thread, so it is stored with `store.save(lease, { ifRevision })`, the
 * store's own compare-and-set, on every backend. It holds no messages.
 */
export class LeaseThread implements Thread<LeaseState> {
  readonly specificationVersion = "v1";
  readonly type = LEASE_THREAD_TYPE;
  readonly capabilities = NO_CAPABILITIES;
  #state: LeaseState;

  constructor(
    state: LeaseState,
    readonly store?: ThreadStore,
  ) {
    this.#state = state;
  }

  get id(): string {
    return this.#state.id;
  }
  get revision(): number {
    return this.#state.revision;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return {};
  }
  get context(): Readonly<Record<string, unknown>> {
    return {};
  }

  append(): Promise<Message[]> {
    return this.#unsupported("messages");
  }
  messages(): Promise<Message[]> {
    return this.#unsupported("messages");
  }
  view(): Promise<Message[]> {
    return this.#unsupported("views");
  }
  fork(): Promise<Thread> {
    return this.#unsupported("fork");
  }
  checkpoint(): Promise<never> {
    return this.#unsupported("checkpoints");
  }
  rollback(): Promise<never> {
    return this.#unsupported("rollback");
  }
  at(): Promise<never> {
    return this.#unsupported("time travel");
  }
  history(): Promise<never> {
    return this.#unsupported("time travel");
  }
  update(): Promise<void> {
    return this.#unsupported("update", "a lease changes only through the thread service.");
  }

  async refresh(): Promise<void> {
    if (!this.store) return;
    const fresh = await this.store.get(this.id);
    if (fresh instanceof LeaseThread) this.#state = fresh.toJSON();
  }

  toJSON(): LeaseState {
    return { ...this.#state };
  }

  async delete(): Promise<void> {
    await this.store?.delete(this.id);
  }

  async #unsupported(capability: string, detail?: string): Promise<never> {
    throw new UnsupportedOperationError(
      LEASE_THREAD_TYPE,
      capability,
      detail ?? "a lease document holds no messages.",
      { source: "thread-service" },
    );
  }
}

/** The lease document type, registered in a service's store registry so the store can read leases back. */
export const leaseThreadType = defineThreadType<LeaseState>({
  type: LEASE_THREAD_TYPE,
  version: 1,
  schema: ThreadStateSchema as never,
  packageName: "@skein/thread-service",
  bind: (state, environment) => new LeaseThread(checkLeaseState(state), environment.store),
});

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
