import type { Thread } from "@skein/thread-core";

/** Methods of threads that answer at once rather than with a promise (a workflow's sub-thread lookups). */
const SYNC_METHODS = new Set<PropertyKey>(["toJSON", "thread", "keys"]);

/** The writes a fence makes itself, with its `ifRevision`, rather than let through with a lease check only. */
const FENCED_WRITES = new Set<PropertyKey>([
  "append",
  "update",
  "rollback",
  "checkpoint",
  "fork",
  "delete",
  "edit",
  "regenerate",
  "switchTo",
]);

/**
 * `thread` as a leased run's runner reaches it through `FencedThread.inner` (thread-core's `runTarget`), for
 * its type's own behaviour (an `a2a` thread's reply, a Foundry thread's `runAgent`): every method called on
 * it first checks that the lease is still held, its writes are `fence`'s own (so they carry the fence's
 * `ifRevision`), and a thread one of its methods returns (a workflow's `thread("main")`) is handed out as
 * `fenceOf` wraps it (a fence of its own sharing the lease, so its writes carry its own revision). Properties are read from the thread itself, whose methods may use private
 * fields a proxy does not have.
 */
export function leaseGuarded(
  thread: Thread,
  fence: Thread,
  assertHeld: () => void,
  fenceOf: (sub: Thread) => Thread,
): Thread {
  return new Proxy(thread, {
    get(target, key) {
      if (FENCED_WRITES.has(key)) {
        // A write the fence does not make (a local thread's edit) is absent here, never let through unfenced.
        const write = Reflect.get(fence, key, fence) as ((...args: unknown[]) => unknown) | undefined;
        return typeof write === "function" ? write.bind(fence) : undefined;
      }
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        // A thread's operations return promises: a lost lease is a rejection, as their own failures are.
        if (SYNC_METHODS.has(key)) assertHeld();
        else {
          try {
            assertHeld();
          } catch (error) {
            return Promise.reject(error);
          }
        }
        const result = (value as (...args: unknown[]) => unknown).apply(target, args);
        return isThread(result) ? fenceOf(result) : result;
      };
    },
  });
}

function isThread(value: unknown): value is Thread {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Thread).type === "string" &&
    typeof (value as Thread).append === "function"
  );
}
