export {
  CorruptStoreError,
  type LockHolder,
  LockLostError,
  LockOutcomeUnknownError,
  LockTimeoutError,
  StoreDirectoryError,
  StoreNotFoundError,
  UnsupportedStoreFormatError,
} from "./errors.js";
export { FsLogDriver, type FsLogDriverOptions } from "./fs-log-driver.js";
export {
  type FsAdapter,
  type FsAdapterOptions,
  type FsStoreOptions,
  fsAdapter,
  fsStore,
  parseFileUrl,
} from "./fs-store.js";
export { fsThreadType } from "./fs-thread-type.js";
export type { Durability } from "./records/durable-files.js";
