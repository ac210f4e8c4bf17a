import { performance } from "node:perf_hooks";
import { SkeinError, ThreadNotFoundError, type ThreadStore } from "@skein/thread-core";
import { fenceOffFormerHolder } from "./fence-off-former-holder.js";
import { LEASE_THREAD_TYPE, type LeaseState, leaseIdOf, readLeaseDocument } from "./lease-document.js";
import { isConcurrencyError } from "./optimistic-update.js";

/** How many released leases' revisions an instance remembers; past it, the oldest is read again when taken. */
const FREED_LIMIT = 1024;

/** An unchanged revision seen since `since` (this process's monotonic clock). */
interface Observation {
  revision: number;
  holder: string;
  since: number;
}

/**
 * Per-thread leases of one service instance. A lease is a compare-and-set document in the store; a holder
 * renews it by writing the next revision. Expiry is judged without comparing clocks across machines: a
 * waiter takes a lease over only after it has seen the same revision, unchanged, for a whole `leaseMs` on
 * its own monotonic clock, and a holder stops trusting its lease `leaseMs` after it *sent* its last
 * successful write. A write lands after it is sent and is seen after it lands, so the holder always stops
 * before a waiter starts (up to clock-rate drift, which `leaseMs` dwarfs).
 */
export class ThreadLeases {
  /** One entry per thread this instance waits for: dropped when it takes the lease or stops waiting (`forget`). */
  readonly #observed = new Map<string, Observation>();
  /**
   * The revision at which this instance last released a thread's lease (wrote it free), newest last and at
   * most FREED_LIMIT of them: taking such a lease again needs no read first (see `tryAcquire`).
   */
  readonly #freed = new Map<string, number>();
  /**
   * Threads whose lease this instance took over but could not fence off (`fenceOffFormerHolder` failed): the
   * lease was left in this instance's name, unrenewed, so taking it again here (at once, as its own) must
   * move the revision on first, as another instance's takeover would. At most FREED_LIMIT, oldest dropped, and
   * in this process only: a dropped thread, or any after a restart, is taken again without that commit (the
   * README and RELIABILITY say so).
   */
  readonly #owed = new Set<string>();

  constructor(
    readonly store: ThreadStore,
    readonly holder: string,
    readonly leaseMs: number,
  ) {}

  /** Takes the thread's lease if it is free or its holder stopped renewing; undefined while someone holds it. */
  async tryAcquire(threadId: string): Promise<HeldLease | undefined> {
    const freed = this.#freed.get(threadId);
    if (freed !== undefined) {
      this.#freed.delete(threadId);
      // The store's compare-and-set at the revision this instance wrote free succeeds only if nobody has
      // written the lease since: then it is free, exactly what a read would have shown. Otherwise, read.
      // (Revisions only grow while the document exists; it is never deleted while its thread is in use.)
      const held = await this.#take(threadId, freed);
      if (held) return held;
    }
    const current = await this.read(threadId);
    const heldElsewhere = current?.holder != null && current.holder !== this.holder;
    if (heldElsewhere && !this.#expired(threadId, current)) return undefined;
    const held = await this.#take(threadId, current?.revision ?? 0);
    // Taken over: a run of the former holder, frozen past its lease, may still have a write on its way.
    // Its fence is refused from now on, before this instance's turn reads the thread.
    if (held && (heldElsewhere || this.#owed.has(threadId))) {
      try {
        await fenceOffFormerHolder(this.store, threadId);
        this.#owed.delete(threadId);
      } catch (error) {
        // The turn cannot start unfenced. Freed, the lease could be taken by anyone without a takeover; so it
        // stays in this instance's name, unrenewed: another instance takes it over (and fences) after leaseMs,
        // and this one fences before it takes it again. The caller sees the error.
        this.#owed.delete(threadId);
        if (this.#owed.size >= FREED_LIMIT) this.#owed.delete(this.#owed.values().next().value as string);
        this.#owed.add(threadId);
        held.markLost();
        throw error;
      }
    }
    return held;
  }

  /** Notes that this instance wrote the thread's lease free at `revision`. */
  freed(threadId: string, revision: number): void {
    this.#freed.delete(threadId);
    if (this.#freed.size >= FREED_LIMIT) this.#freed.delete(this.#freed.keys().next().value as string);
    this.#freed.set(threadId, revision);
  }

  /** Writes the lease as this instance's if it is still at `revision`; undefined if someone wrote it since. */
  async #take(threadId: string, revision: number): Promise<HeldLease | undefined> {
    const sentAt = performance.now();
    try {
      await this.store.save(this.#state(threadId, revision + 1, this.holder), {
        ifRevision: revision,
      });
    } catch (error) {
      if (isConcurrencyError(error) || ThreadNotFoundError.isInstance(error)) return undefined;
      throw error;
    }
    this.#observed.delete(threadId);
    return new HeldLease(this, threadId, revision + 1, sentAt + this.leaseMs);
  }

  /** How many threads' leases, held elsewhere, this instance is timing now. */
  get watched(): number {
    return this.#observed.size;
  }

  /**
   * Stops timing the thread's lease: this instance has no more work for it. Waiting again later starts a
   * new observation, which only delays a takeover, never hastens one.
   */
  forget(threadId: string): void {
    this.#observed.delete(threadId);
  }

  /** The thread's lease document, if there is one. */
  async read(threadId: string): Promise<LeaseState | undefined> {
    return readLeaseDocument(this.store, threadId);
  }

  /** Whether another instance appears to hold the thread (by wall clock: a hint for `status()`, not a decision). */
  async heldElsewhere(threadId: string): Promise<boolean> {
    const current = await this.read(threadId);
    return (
      current?.holder != null && current.holder !== this.holder && Date.parse(current.expiresAt) > Date.now()
    );
  }

  /** Writes the lease at `revision` (expected to be stored at `revision - 1`); throws `ConcurrencyError` if not. */
  async write(threadId: string, revision: number, holder: string | null): Promise<void> {
    await this.store.save(this.#state(threadId, revision, holder), {
      ifRevision: revision - 1,
    });
  }

  #expired(threadId: string, current: LeaseState): boolean {
    const now = performance.now();
    const seen = this.#observed.get(threadId);
    if (!seen || seen.revision !== current.revision || seen.holder !== current.holder) {
      this.#observed.set(threadId, {
        revision: current.revision,
        holder: current.holder as string,
        since: now,
      });
      return false;
    }
    return now - seen.since >= Math.max(current.leaseMs, this.leaseMs);
  }

  #state(threadId: string, revision: number, holder: string | null): LeaseState {
    const now = Date.now();
    return {
      $type: LEASE_THREAD_TYPE,
      $v: 1,
      id: leaseIdOf(threadId),
      threadId,
      holder,
      revision,
      leaseMs: this.leaseMs,
      renewedAt: new Date(now).toISOString(),
      expiresAt: new Date(holder === null ? now : now + this.leaseMs).toISOString(),
    };
  }
}

/**
 * A lease this instance holds: renewed every third of `leaseMs` until released. `signal` aborts when the
 * lease is lost (another instance took over, or renewals kept failing until it ran out).
 */
export class HeldLease {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  #revision: number;
  #validUntil: number;
  #pending: Promise<void> = Promise.resolve();
  #released = false;

  constructor(
    readonly leases: ThreadLeases,
    readonly threadId: string,
    revision: number,
    validUntil: number,
  ) {
    this.#revision = revision;
    this.#validUntil = validUntil;
    this.#timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(leases.leaseMs / 3)));
    // A lease never keeps a process alive on its own: a process that exits has let it go anyway.
    this.#timer.unref();
  }

  /** Aborts when the lease is lost. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True while this instance may still act for the thread. */
  valid(): boolean {
    return !this.#released && !this.signal.aborted && performance.now() < this.#validUntil;
  }

  /** Writes the next revision; a lost compare-and-set, or running out of time, ends the lease. */
  renew(): Promise<void> {
    this.#pending = this.#pending.then(async () => {
      if (this.#released || this.signal.aborted) return;
      if (!this.valid()) return this.#lose();
      const sentAt = performance.now();
      try {
        await this.leases.write(this.threadId, this.#revision + 1, this.leases.holder);
        this.#revision++;
        this.#validUntil = sentAt + this.leases.leaseMs;
      } catch (error) {
        // A store hiccup is retried at the next tick for as long as the lease lasts.
        if (isConcurrencyError(error) || !this.valid()) this.#lose();
      }
    });
    return this.#pending;
  }

  /**
   * Whether the store still shows this lease as this instance's, at the revision it last wrote: false once
   * another instance took it, whatever this process's clock says. Waits for a renewal in flight.
   */
  confirm(): Promise<boolean> {
    const confirmed = this.#pending.then(async () => {
      if (!this.valid()) return false;
      const current = await this.leases.read(this.threadId);
      return current?.holder === this.leases.holder && current.revision === this.#revision;
    });
    this.#pending = confirmed.then(
      () => {},
      () => {},
    );
    return confirmed;
  }

  /** Ends the lease as lost: a write was refused because another instance holds the thread now. */
  markLost(): void {
    if (!this.signal.aborted) this.#lose();
  }

  /** Frees the lease for others at once; a lease already lost is left to its new holder. */
  release(): Promise<void> {
    clearInterval(this.#timer);
    this.#pending = this.#pending.then(async () => {
      if (this.#released) return;
      this.#released = true;
      if (this.signal.aborted) return;
      try {
        await this.leases.write(this.threadId, this.#revision + 1, null);
        this.leases.freed(this.threadId, this.#revision + 1);
      } catch {
        // Someone else holds it now, or the store is away: either way it is theirs already or expires.
      }
    });
    return this.#pending;
  }

  #lose(): void {
    clearInterval(this.#timer);
    this.#controller.abort(
      new SkeinError(`Lost the lease of thread ${JSON.stringify(this.threadId)}.`, {
        source: "thread-service",
      }),
    );
  }
}
