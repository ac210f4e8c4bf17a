import { InvalidThreadIdError, openStore, type ThreadStore } from "@skein/thread-core";
import { UsageError } from "../cli/cli-error.js";

/** The embedded default: files under ./.skein, no server needed. */
export const DEFAULT_STORE_URL = "file:./.skein";

/** `--store`, else `SKEIN_STORE`, else the default. */
export function storeUrlFrom(flag: string | undefined, environment: NodeJS.ProcessEnv): string {
  return flag ?? (environment.SKEIN_STORE || DEFAULT_STORE_URL);
}

/**
 * Opens a store by URL and, given a tenant, narrows it to that scope. `close` closes the store itself:
 * closing a scope releases nothing.
 */
export async function openCliStore(
  url: string,
  tenant: string | undefined,
): Promise<{ store: ThreadStore; close: () => Promise<void> }> {
  const root = await openStore(url);
  if (tenant === undefined) return { store: root, close: () => root.close() };
  try {
    return { store: root.scope(tenant), close: () => root.close() };
  } catch (error) {
    await root.close();
    if (InvalidThreadIdError.isInstance(error)) {
      throw new UsageError(
        `--scope ${JSON.stringify(tenant)} is not a valid tenant name: 1–256 characters, no control characters`,
      );
    }
    throw error;
  }
}
