import type { ThreadStore } from "@skein/thread-core";
import { type ForkTip, forkTipOf, type HistoryNode } from "@skein/thread-core/driver";
import { excerpt } from "../format/contents.js";
import { drawGraph } from "./draw-graph.js";

/** Threads read at once while looking for forks. */
const SCAN_BATCH = 32;

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
