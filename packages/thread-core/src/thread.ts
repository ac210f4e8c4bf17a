export type {
  Alternative,
  AppendOptions,
  BranchChange,
  Checkpoint,
  EditOptions,
  ForkOptions,
  HistoryEvent,
  LogPoint,
  PointTarget,
  ReadOptions,
  RollbackOptions,
  SwitchOptions,
  Thread,
  ThreadCapabilities,
  ThreadSnapshot,
  ThreadUpdate,
  UpdateOptions,
  ViewOptions,
} from "./spec/thread.js";

/** The target before a thread's first message. */
export const START = "start";
