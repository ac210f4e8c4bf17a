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
export { type FsAdapter, type FsAdapterOptions, fsAdapter, parseFileUrl } from "./fs-adapter.js";
export { FsLogDriver, type FsLogDriverOptions } from "./fs-log-driver.js";
export { type FsStoreOptions, fsStore } from "./fs-store.js";
export { fsThreadType } from "./fs-thread-type.js";
export type { Durability } from "./records/durable-files.js";
