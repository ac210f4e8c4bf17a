export { createRegistry, defaultRegistry } from "./create-registry.js";
export * from "./errors.js";
export { assertThreadId, newSortableId, MAX_THREAD_ID_LENGTH } from "./ids.js";
export { canonicalJson, type JsonObject, type JsonValue } from "./json.js";
export { LocalStore, type LocalStoreOptions } from "./local/local-store.js";
export { LocalThread, LOCAL_CAPABILITIES, type LocalThreadHost } from "./local/local-thread.js";
export { defineLocalThreadType } from "./local/local-thread-type.js";
export type {
  CommitResult,
  LogChange,
  LogDriver,
  LogRecord,
  RecordSummary,
  SegmentInfo,
  StateRecord,
  StoredRecord,
} from "./local/log-driver.js";
export { newHeadSegment } from "./local/log-driver.js";
export { exportLog, importLog, LogReferenceStateSchema, LogStateSchema, type LogState } from "./local/log-state.js";
export { SegmentChains } from "./local/segment-chain.js";
export { estimateTokens, selectView, type ViewSource } from "./local/view.js";
export { MemoryLogDriver } from "./memory/memory-log-driver.js";
export { createMemoryStore, memoryThreadType, MemoryThreadStateSchema } from "./memory/memory-thread-type.js";
export * from "./message.js";
export { OpaqueThreadState } from "./opaque-state.js";
export { parseThreadState, serializeThread } from "./parse-thread-state.js";
export { Registry, SKEIN_TYPE_PACKAGES, type ParsedState, type ParseOptions } from "./registry.js";
export { openStore, redactUrl, STORE_SCHEMES, type OpenStoreOptions } from "./store/open-store.js";
export type * from "./store/store.js";
export type * from "./thread.js";
export {
  defineThreadType,
  ThreadStateSchema,
  type BindEnvironment,
  type ThreadState,
  type ThreadType,
  type ThreadTypeDefinition,
} from "./thread-type.js";
