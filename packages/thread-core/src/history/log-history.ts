import { UnsupportedOperationError } from "../errors.js";
import { type LogState, LogStateSchema } from "../local/log-state.js";
import { LogThread } from "../local/log-thread.js";
import type { ThreadStore } from "../store/store.js";
import type { Thread } from "../thread.js";
import type { ForkTip } from "./history-graph.js";

/**
 * The thread's export as a log of segments, what `historyGraph` draws; other thread types keep no such
 * history (`UnsupportedOperationError`).
 * @example const nodes = historyGraph(await readLogState(store, "support-42"));
 */
export async function readLogState(store: ThreadStore, id: string): Promise<LogState> {
  const exported = await store.export(id);
  const parsed = LogStateSchema.safeParse(exported);
  if (!parsed.success) {
    throw new UnsupportedOperationError(
      exported.$type,
      "log",
      "its history is not a log of segments kept in this store.",
    );
  }
  return parsed.data;
}

/**
 * `thread` as a branch tip of `parentId`'s log, if it is a log thread forked from it; what `historyGraph`
 * draws as a fork.
 */
export async function forkTipOf(thread: Thread, parentId: string): Promise<ForkTip | undefined> {
  if (!LogThread.isInstance(thread)) return undefined;
  await thread.refresh();
  const origin = thread.record.events.find((event) => event.kind === "fork");
  if (origin?.kind !== "fork" || origin.parentId !== parentId) return undefined;
  const [last] = await thread.messages({ last: 1 });
  return { id: thread.id, from: origin.from, length: thread.length, ...(last ? { last } : {}) };
}
