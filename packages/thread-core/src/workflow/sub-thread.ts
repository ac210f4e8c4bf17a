import type { OpaqueThreadState } from "../opaque-state.js";
import type { Thread } from "../thread.js";

/** A workflow's sub-thread: bound, or opaque when this process lacks its type's adapter. */
export type SubThread = Thread | OpaqueThreadState;
