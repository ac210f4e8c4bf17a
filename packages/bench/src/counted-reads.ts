import type { LogDriver } from "@skein/thread-core/driver";

/**
 * `inner` seen through a proxy that counts the records its expiry index, catalogue and id listing hand up
 * (what a sweep's cost is counted in); with `scan`, its expiry index is hidden, so a sweep takes the fallback
 * every store without one uses: a read of each record of the scope.
 */
export function countedReads(
  inner: LogDriver,
  scan: boolean,
): { driver: LogDriver; reads: { count: number } } {
  const reads = { count: 0 };
  const driver = new Proxy(inner, {
    get: (target, key) => {
      if (key === "expiring" && scan) return undefined;
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      if (key === "expiring" || key === "catalogue" || key === "list") {
        return async (...args: unknown[]) => {
          const found = (await value.apply(target, args)) as unknown[];
          reads.count += found.length;
          return found;
        };
      }
      return value.bind(target);
    },
  }) as LogDriver;
  return { driver, reads };
}
