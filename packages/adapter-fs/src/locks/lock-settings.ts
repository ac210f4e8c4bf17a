/** How long lock files are waited for and when they go stale: what `LockFiles` and its breaker and sweeper share. */
export interface LockSettings {
  /** How long to wait for a lock before `LockTimeoutError`. */
  timeoutMs: number;
  /**
   * A lock its owner has not refreshed for this long is taken over, its owner's late writes fenced off,
   * whether the owner stopped running (frozen, starved) or cannot be checked (another host): owners
   * refresh their locks every quarter of it while they hold them. See `LockFiles`' class comment.
   */
  staleMs: number;
}
