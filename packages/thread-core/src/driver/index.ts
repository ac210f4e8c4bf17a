/**
 * What an adapter author imports: for a store, the `LogDriver` contract and the pieces thread-core builds on it; for
 * a runtime, the context-provider plumbing; the zod thread-core's schemas are built with. Applications import from
 * `@skein/thread-core`; tests from `@skein/thread-core/testing`. Each name has one entry point.
 */
/** The zod that thread-core's schemas are built with: adapters extend `ThreadStateSchema` with it. */
export { z } from "zod";
export { catalogueEntry, orderKey } from "../catalogue/catalogue-entry.js";
export { CATALOGUE_KEY, type CatalogueFields, catalogueOf } from "../catalogue/catalogue-fields.js";
export { scanCatalogue } from "../catalogue/catalogue-scan.js";
export {
  type CatalogueQuery,
  type CountQuery,
  comparePositions,
  isAfterCursor,
  type ListPosition,
  matchesQuery,
  matchesWhere,
} from "../catalogue/list-query.js";
export {
  checkContextProviders,
  initialProviderStates,
  runWithContextProviders,
} from "../context-provider.js";
export { HeadMovedError } from "../errors.js";
export { AppendPlan } from "../local/append-plan.js";
export { importConflicts } from "../local/import-conflicts.js";
export { LocalStore, type LocalStoreOptions } from "../local/local-store.js";
export type {
  AppliedOperation,
  CommitResult,
  LogChange,
  LogDriver,
  LogRecord,
  RecordSummary,
  SegmentInfo,
  StateRecord,
  StoredRecord,
} from "../local/log-driver.js";
export { eventSegments, newHeadSegment, OPERATIONS_KEPT } from "../local/log-driver.js";
export { SEGMENT_INFO_CACHE_SIZE, SegmentInfoCache } from "../local/segment-info-cache.js";
export {
  assignServiceFailure,
  type HeaderSource,
  readServiceHeaders,
  systemErrorCode,
} from "../service-error.js";
export { findStoreAdapter } from "../store/open-store.js";
export { redactUrl, redactUrlText } from "../store/redact-url.js";
export { registerStoreAdapter, SKEIN_STORE_PACKAGES } from "../store/store-schemes.js";
export { type LogDriverSuiteOptions, runLogDriverSuite } from "../testing/log-driver-suite.js";
export {
  defineLogStore,
  type LogStoreAdapter,
  type LogStoreDefinition,
  type LogStoreKit,
  type StoreBinding,
} from "./define-log-store.js";
