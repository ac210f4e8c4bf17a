/** The JSON the UI's HTTP API answers with (thread-core's own types, such as `Message`, come from thread-core). */
export type {
  ApiErrorBody,
  BranchShown,
  Comparison,
  ContextView,
  GraphNode,
  HistoryGraphData,
  MessagePage,
  SubThreadInfo,
  ThreadInfo,
  ThreadListPage,
  ThreadRow,
  UiInfo,
  VersionMark,
  WorkflowInfo,
  WriteRequest,
  WriteResult,
} from "./api-types.js";
export { UiAssetsMissingError, UiOptionsError, UiRequestError } from "./errors.js";
export { startUi, type UiOptions, type UiServer } from "./server/start-ui.js";
