export type {
  CountOptions,
  CreateThreadOptions,
  ListOptions,
  ListOrder,
  SkeinAdapter,
  ThreadPage,
  ThreadStore,
  ThreadSummary,
  ThreadTypeRegistry,
} from "../spec/thread-store.js";

/** The most threads one `list` page holds; page on with the cursor for more. Every store refuses more. */
export const MAX_LIST_LIMIT = 1_000;
