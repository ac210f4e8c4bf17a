import { fsAdapter } from "@skein/adapter-fs";
import { InvalidThreadIdError, type OpenStoreOptions, openStore, type ThreadStore } from "@skein/thread-core";
import { type EncryptionOptions, findStoreAdapter, type SkeinAdapter } from "@skein/thread-core/driver";
import { UsageError } from "../cli/cli-error.js";

type RetentionOptions = NonNullable<OpenStoreOptions["retention"]>;

/** The embedded default: files under ./.skein, no server needed. */
export const DEFAULT_STORE_URL = "file:./.skein";

/** `--store`, else `SKEIN_STORE`, else the default. */
export function storeUrlFrom(flag: string | undefined, environment: NodeJS.ProcessEnv): string {
  return flag ?? (environment.SKEIN_STORE || DEFAULT_STORE_URL);
}

/** How the CLI opens a store: whether a path that holds no store yet may be made one. */
export interface CliStoreOptions {
  /**
   * Make the store if the URL names none yet (`create`, `import`, `demo`, migrate's destination). Otherwise a
   * `file:` path without a store fails with `StoreNotFoundError` and nothing is created: a typo in a path
   * read from (`ls`, `show`, migrate's source) must not leave a directory behind. @default false
   */
  create?: boolean;
  /** The retention policy to open the store with (`skein sweep --idle-for 30d`). @default none */
  retention?: RetentionOptions;
  /** Keys of an encrypted store (`--keys-file`, `SKEIN_KEYS_FILE`, `SKEIN_KEYS`). @default none */
  encryption?: EncryptionOptions;
}

/**
 * Opens a store by URL and, given a tenant, narrows it to that scope. `close` closes the store itself:
 * closing a scope releases nothing.
 */
export async function openCliStore(
  url: string,
  tenant: string | undefined,
  options: CliStoreOptions = {},
): Promise<{ store: ThreadStore; close: () => Promise<void> }> {
  const root = await openStore(url, {
    adapters: await mustExistAdapters(url, options),
    ...(options.retention ? { retention: options.retention } : {}),
    ...(options.encryption ? { encryption: options.encryption } : {}),
  });
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

/**
 * The fs adapter that opens only existing stores, for a `file:` URL that must name one. Only when the
 * `file:` scheme is adapter-fs's: an adapter that `--adapter` registered for it in its place is used as it is.
 */
async function mustExistAdapters(url: string, options: CliStoreOptions): Promise<SkeinAdapter[]> {
  if (options.create === true || !/^file:/i.test(url)) return [];
  const registered = await findStoreAdapter("file");
  const ours = fsAdapter({ create: false });
  return registered.packageName === ours.packageName ? [ours] : [];
}
