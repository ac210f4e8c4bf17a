import { defaultRegistry } from "../create-registry.js";
import { encryptingLogDriver, innerDriver } from "../encryption/encrypting-log-driver.js";
import { InvalidStoreUrlError, SkeinError } from "../errors.js";
import { LocalStore } from "../local/local-store.js";
import { defineLocalThreadType } from "../local/local-thread-type.js";
import type { LogDriver } from "../local/log-driver.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import type { RetentionOptions, ThreadTypeRegistry } from "../spec/thread-store.js";
import { redactUrlText } from "../store/redact-url.js";
import type { SkeinAdapter } from "../store/store.js";
import { registerStoreAdapter } from "../store/store-schemes.js";
import type { ThreadType } from "../thread-type.js";

/** What a store built on a `LogDriver` is: its type, its package, its URL schemes and how to make a driver. */
export interface LogStoreDefinition<Options extends object> {
  /** The thread type of the store's local threads, which `store.create()` makes (`postgres`). */
  type: string;
  /** The npm package, named in errors and install hints (`@skein/adapter-postgres`). */
  packageName: string;
  /** URL schemes without the colon (`["postgres", "postgresql"]`); registered for `openStore` and the CLI. */
  schemes: readonly string[];
  /** The driver of one store; its `nativeType` must be `type`. */
  createDriver(options: Options): LogDriver;
  /** The options a store URL gives, with the adapter's `options` (which win over the URL's) merged in. */
  optionsFromUrl(url: URL, options: Partial<Options>): Options;
  /**
   * Optional: the options of a URL handed to the adapter's `openStore` as a string, for URLs a `URL` cannot
   * hold as they were written (`file:./relative`, which WHATWG parsing makes absolute at the root).
   * `openStore(url)` always hands over a `URL`. @default optionsFromUrl(new URL(text), options)
   */
  optionsFromText?(text: string, options: Partial<Options>): Options;
  /** What `store.url` reports for these options: never a password. */
  describe(options: Options): string;
  /**
   * Optional: run by `openStore` before it hands the store out, so that a wrong URL fails at once (or to make
   * what the store needs, such as its directory). The store is closed if it throws.
   */
  verify?(driver: LogDriver, options: Options): Promise<void>;
}

/** Where a store's threads are parsed and bound. */
export interface StoreBinding {
  /** @default defaultRegistry() */
  registry?: ThreadTypeRegistry;
  /** Adapters of other thread types the store keeps. @default [] */
  adapters?: readonly SkeinAdapter[];
  /** Encrypts what the store keeps at rest (AES-256-GCM). @default no encryption */
  encryption?: EncryptionOptions;
  /** How long threads are kept (`{ idleFor: "30d" }`), as `openStore`'s `retention`. @default until deleted */
  retention?: RetentionOptions;
}

/** The adapter `defineLogStore` makes: its `openStore` also takes a URL string, and its context is optional. */
export interface LogStoreAdapter extends SkeinAdapter {
  openStore(url: URL | string, context?: Partial<StoreContext>): Promise<LocalStore>;
}

/** What `openStore` hands an adapter: the registry and the adapters of other thread types. */
interface StoreContext {
  registry: ThreadTypeRegistry;
  adapters: readonly SkeinAdapter[];
  encryption?: EncryptionOptions;
}

/** What `defineLogStore` gives: export them as `xThreadType`, `xStore` and `xAdapter`. */
export interface LogStoreKit<Options extends object> {
  threadType: ThreadType;
  /** A store with these options (and a client in them, if your options take one). */
  store(options: Options & StoreBinding): LocalStore;
  /** The adapter behind the store's URL schemes, for `openStore(url, { adapters })` and the CLI. */
  adapter(options?: Partial<Options>): LogStoreAdapter;
}

/**
 * Turns a `LogDriver` into a store: the thread type, the `xStore(options)` factory and the `xAdapter()` that
 * `openStore` and `skein --adapter` use. The adapter's URL schemes are registered when this runs, so
 * importing the package is enough for `openStore("sqlite:…")` to find it.
 * @example export const { threadType: sqliteThreadType, store: sqliteStore, adapter: sqliteAdapter } = defineLogStore({ … });
 */
export function defineLogStore<Options extends object>(
  definition: LogStoreDefinition<Options>,
): LogStoreKit<Options> {
  const threadType = defineLocalThreadType(
    definition.type,
    definition.packageName,
    `${definition.schemes[0] ?? definition.type}:`,
  );
  const store = (options: Options & StoreBinding): LocalStore => {
    const registry = options.registry ?? defaultRegistry();
    registry.ensure(threadType);
    const plain = definition.createDriver(options);
    if (plain.nativeType !== definition.type) {
      throw new SkeinError(
        `${definition.packageName}'s driver makes "${plain.nativeType}" threads, but the store is of type "${definition.type}".`,
      );
    }
    const driver = options.encryption ? encryptingLogDriver(plain, options.encryption) : plain;
    return new LocalStore({
      driver,
      registry,
      url: definition.describe(options),
      adapters: options.adapters,
      ...(options.retention ? { retention: options.retention } : {}),
    });
  };
  const adapter = (options: Partial<Options> = {}): LogStoreAdapter => ({
    specificationVersion: "v1",
    packageName: definition.packageName,
    schemes: definition.schemes,
    types: [threadType],
    async openStore(url, context = {}) {
      const fromUrl =
        typeof url !== "string"
          ? definition.optionsFromUrl(url, options)
          : definition.optionsFromText
            ? definition.optionsFromText(url, options)
            : definition.optionsFromUrl(parsedUrl(url), options);
      const opened = store({
        ...fromUrl,
        registry: context.registry,
        adapters: context.adapters,
        ...(context.encryption ? { encryption: context.encryption } : {}),
      });
      try {
        // Checked on the store's own driver: what `verify` reads or makes needs no keys.
        await definition.verify?.(innerDriver(opened.driver), fromUrl);
      } catch (error) {
        await opened.close();
        throw error;
      }
      return opened;
    },
  });
  registerStoreAdapter(adapter);
  return { threadType, store, adapter };
}

function parsedUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    // Node's ERR_INVALID_URL keeps the input, password and all, so it is not kept as the cause.
    throw new InvalidStoreUrlError(redactUrlText(text), "it is not a URL");
  }
}
