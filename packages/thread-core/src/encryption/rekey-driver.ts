import { UnsupportedOperationError } from "../errors.js";
import type { LogDriver } from "../local/log-driver.js";
import { SCOPE_SEPARATOR, ScopedLogDriver } from "../local/scoped-log-driver.js";
import type { RekeyOptions, RekeyReport } from "../spec/rekey.js";
import { isEncryptingDriver } from "./encrypting-log-driver.js";

interface Rekeying {
  rekey(options: RekeyOptions | undefined, prefix: string): Promise<RekeyReport>;
}

/**
 * `store.rekey` for a local store's driver: the encrypting driver under any scopes rekeys the records of the
 * innermost scope (a scoped store rekeys only its own threads). A store that does not encrypt refuses.
 */
export function rekeyDriver(driver: LogDriver, options?: RekeyOptions): Promise<RekeyReport> {
  let prefix = "";
  let current: LogDriver = driver;
  // Scope(Scope(store, a), b) stores id x as <a><b>x: the outer scope's prefix goes nearest the id.
  while (current instanceof ScopedLogDriver) {
    prefix = `${SCOPE_SEPARATOR}${current.scope}${SCOPE_SEPARATOR}${prefix}`;
    current = current.inner;
  }
  if (!isEncryptingDriver(current)) {
    return Promise.reject(
      new UnsupportedOperationError(
        driver.nativeType,
        "rekey",
        "the store does not encrypt (open it with { encryption }); nothing was changed",
        { source: driver.source },
      ),
    );
  }
  return (current as unknown as Rekeying).rekey(options, prefix);
}
