// The options and report of `store.erase`: removing one owner's data from a store. Only types.

/** Options of `store.erase`: whose data goes, and whether other owners' forks of it go too. */
export interface EraseOptions {
  /** The owner whose threads are erased (required: there is no "erase everything"). */
  owner: string;
  /**
   * Also erase other owners' threads that share the owner's messages (forks of the owner's threads, and
   * forks of those). Without it they are kept, and with them the messages they share. @default false
   */
  includeSharedForks?: boolean;
  /** Stops the erasure between threads; what was erased stays erased and a second call finishes. */
  signal?: AbortSignal;
  /** Called as the erasure advances: after the store was read, and after each thread. */
  onProgress?: (progress: ErasureProgress) => void;
  /**
   * On a store with per-owner keys that can be destroyed, whether to destroy the owner's keys once their
   * threads are deleted (see `ErasureReport.method`). False keeps them: for an owner whose keys still seal
   * data of threads now owned by someone else (a thread's owner changed; its old messages were not re-sealed).
   * @default true
   */
  shredKey?: boolean;
}

/** Where an erasure stands. */
export interface ErasureProgress {
  /** `"scanned"`: the store was read and the threads to erase are known; `"erased"`: one more is gone. */
  phase: "scanned" | "erased";
  /** Records of the store read so far. */
  scanned: number;
  /** Threads to erase (the owner's, plus shared forks with `includeSharedForks`). */
  total: number;
  /** Threads erased so far. */
  erased: number;
}

/** A thread named in an erasure report: its id, and the scopes it lives in, outermost first (none: unscoped). */
export interface ErasedThreadRef {
  id: string;
  scopes: string[];
  type: string;
  /** Its owner, for threads kept because shared (absent when the thread has none). */
  owner?: string;
}

/** A thread whose state names a service's thread (an OpenAI conversation, a Foundry thread). */
export interface RemoteErasure extends ErasedThreadRef {
  /** True when the service's copy was deleted through the thread's own `delete()`. */
  deleted: boolean;
  /** Why not, when `deleted` is false: what the service keeps, or the error that stopped the delete. */
  reason?: string;
}

/** What `store.erase` did. A second call for the same owner reports zero threads. */
export interface ErasureReport {
  owner: string;
  /**
   * `"deleted"`: the owner's data was deleted. `"deleted+crypto-shredded"`: deleted, then the owner's keys
   * were destroyed (a store with per-owner keys and `destroyOwnerKey`, erased from its root), so every backup
   * and copy of what was deleted is unreadable too. `keyKept` says why a store that could shred did not.
   */
  method: "deleted" | "deleted+crypto-shredded";
  /**
   * Why the owner's keys were kept on a store that can destroy them: `shredKey: false`, an erasure of one
   * scope (the owner's threads elsewhere in the store use the same keys), or other owners' forks kept that
   * share the owner's messages (sealed with the owner's keys). Absent when shredded or when the store cannot.
   */
  keyKept?: string;
  /** Threads (local logs and saved states) erased. */
  threads: number;
  /** Messages the erased local threads held (a prefix shared by two erased forks counts in each). */
  messages: number;
  /**
   * UTF-8 bytes of the erased threads as JSON: a local thread's stored record (title, metadata, context,
   * history with checkpoint labels, operation ids) plus the messages its log reaches, a saved state's
   * document. The same measure on every store; what the backend frees differs (indexes, encryption, shared
   * prefixes a kept fork still holds).
   */
  bytes: number;
  /** The erased threads. */
  erased: ErasedThreadRef[];
  /** Other owners' threads kept, with the messages of the owner's they share (see `includeSharedForks`). */
  keptShared: ErasedThreadRef[];
  /** Threads of service types: whether the service's copy went too. */
  remote: RemoteErasure[];
  /** What the operator still has to do for the bytes to leave the backend (PostgreSQL: `VACUUM`); absent when nothing. */
  followUp?: string;
}
