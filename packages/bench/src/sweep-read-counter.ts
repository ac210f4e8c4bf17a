import type { LogDriver } from "@skein/thread-core/driver";

/**
 * `driver` with the records it hands a sweep counted (index, catalogue and scan reads together, in
 * `reads.count`); with `scan`, without its expiry index, so a sweep takes the fallback that reads every record.
 */
export function sweepReadCounter(
  driver: LogDriver,
  scan: boolean,
): { driver: LogDriver; reads: { count: number } } {
  const reads = { count: 0 };
  const counted = new Proxy(driver, {
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
  return { driver: counted, reads };
}
