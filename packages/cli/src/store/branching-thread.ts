import { type Thread, UnsupportedOperationError } from "@skein/thread-core";

/** A thread whose messages have versions: a local thread (memory, fs, redis, postgres) or a type like it. */
export type BranchingThread = Thread &
  Required<Pick<Thread, "edit" | "regenerate" | "alternatives" | "switchTo">>;

/** The thread, when its type edits, regenerates and switches between versions; else `UnsupportedOperationError`. */
export function branchingThread(thread: Thread, operation: string): BranchingThread {
  const candidate = thread as Partial<BranchingThread>;
  if (
    typeof candidate.edit === "function" &&
    typeof candidate.regenerate === "function" &&
    typeof candidate.alternatives === "function" &&
    typeof candidate.switchTo === "function"
  ) {
    return thread as BranchingThread;
  }
  throw new UnsupportedOperationError(
    thread.type,
    operation,
    "only threads kept as a log in a store (memory, file, redis, postgres) keep versions of a message",
    { source: "cli" },
  );
}
