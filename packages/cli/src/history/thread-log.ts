import { type LogState, type Thread, type ThreadStore, UnsupportedOperationError } from "@skein/thread-core";
import { LogStateSchema } from "@skein/thread-core/driver";
import { excerpt } from "../format/contents.js";
import { asLocalThread } from "../store/local-thread-access.js";
import { drawGraph } from "./draw-graph.js";
import type { ForkTip, HistoryNode } from "./history-graph.js";

/** Threads read at once while looking for forks. */
const SCAN_BATCH = 32;

/** The thread's export as a log of segments; other thread types keep no such history. */
export async function readLogState(store: ThreadStore, id: string): Promise<LogState> {
  const exported = await store.export(id);
  const parsed = LogStateSchema.safeParse(exported);
  if (!parsed.success) {
    throw new UnsupportedOperationError(
      exported.$type,
      "log",
      "its history is not a log of segments kept in this store.",
      {
        source: "cli",
      },
    );
  }
  return parsed.data;
}

/** Every local thread of the store whose fork event names `parentId`. Reads every thread. */
export async function findForks(store: ThreadStore, parentId: string): Promise<ForkTip[]> {
  const forks: ForkTip[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: SCAN_BATCH, ...(cursor === undefined ? {} : { cursor }) });
    const threads = await Promise.all(
      page.items.filter((item) => item.id !== parentId).map((item) => store.get(item.id)),
    );
    for (const thread of threads) {
      const tip = await forkTipOf(thread, parentId);
      if (tip) forks.push(tip);
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return forks;
}

/** `thread` as a branch tip of `parentId`'s log, if it was forked from it. */
export async function forkTipOf(thread: Thread, parentId: string): Promise<ForkTip | undefined> {
  const local = asLocalThread(thread);
  if (!local) return undefined;
  await local.refresh();
  const origin = local.record.events.find((event) => event.kind === "fork");
  if (origin?.kind !== "fork" || origin.parentId !== parentId) return undefined;
  const [last] = await thread.messages({ last: 1 });
  return { id: thread.id, from: origin.from, length: local.length, ...(last ? { last } : {}) };
}

/** The graph as text lines: `* #5 (HEAD, cp_… "answered") assistant: Yes: 24°C and clear.` */
export function logLines(nodes: HistoryNode[]): string[] {
  const width = String(Math.max(0, ...nodes.map((node) => node.position))).length;
  return drawGraph(
    nodes.map((node) => ({
      key: node.key,
      ...(node.parent === undefined ? {} : { parent: node.parent }),
      text: nodeText(node, width),
    })),
  );
}

function nodeText(node: HistoryNode, width: number): string {
  const position = `#${node.position}`.padEnd(width + 1);
  const labels = node.labels.length > 0 ? ` (${node.labels.join(", ")})` : "";
  return `${position}${labels}${node.message ? ` ${excerpt(node.message)}` : ""}`;
}
