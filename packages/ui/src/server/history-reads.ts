import {
  type HistoryEvent,
  type LogPoint,
  LogThread,
  type Message,
  type Thread,
  type ThreadStore,
} from "@skein/thread-core";
import {
  type ForkTip,
  forkTipOf,
  historyGraph,
  type LogState,
  readLogState,
} from "@skein/thread-core/driver";
import type { Comparison, GraphNode, HistoryGraphData } from "../api-types.js";
import { layoutColumns } from "./graph-layout.js";
import type { Readable } from "./thread-address.js";
import { MAX_PAGE } from "./thread-reads.js";

/** The most threads read while looking for forks of one thread: the scan stays bounded on large stores. */
export const MAX_FORK_SCAN = 2000;
const FORK_LABEL = "forked from ";

/** The thread's fork, checkpoint and rollback tree, laid out; with `forks`, also threads forked from it. */
export async function historyGraphData(
  store: ThreadStore,
  id: string,
  options: { forks: boolean },
): Promise<HistoryGraphData> {
  const state = await readLogState(store, id);
  const scan = options.forks ? await findForkTips(store, id) : { tips: [], scanned: 0, incomplete: false };
  const nodes = historyGraph(state, scan.tips);
  const targets = recordedTargets(state);
  const columns = layoutColumns(nodes);
  const checkpointLabels = new Set(
    state.events.flatMap((event) =>
      event.kind === "checkpoint"
        ? [
            event.checkpoint.label === undefined
              ? event.checkpoint.id
              : `${event.checkpoint.id} "${event.checkpoint.label}"`,
          ]
        : [],
    ),
  );
  return {
    nodes: nodes.map((node, row): GraphNode => {
      const forkedFrom = node.labels.find((label) => label.startsWith(FORK_LABEL))?.slice(FORK_LABEL.length);
      const forkId = node.key.startsWith("fork:") ? node.key.slice("fork:".length) : undefined;
      return {
        key: node.key,
        position: node.position,
        ...(targets.has(node.key) ? { point: targets.get(node.key) } : {}),
        ...(node.parent === undefined ? {} : { parent: node.parent }),
        labels: node.labels,
        head: node.head,
        checkpoint: node.labels.some((label) => checkpointLabels.has(label)),
        ...(forkId === undefined ? {} : { forkId }),
        ...(forkedFrom === undefined ? {} : { forkedFrom }),
        ...(node.message ? { excerpt: excerptOf(node.message), role: node.message.role } : {}),
        row,
        column: columns.get(node.key) ?? 0,
      };
    }),
    forksScanned: scan.scanned,
    forksScanIncomplete: scan.incomplete,
  };
}

/**
 * The points of the log a thread will go to (`at`, `rollback`, `fork`): the ones its history recorded,
 * under the key `historyGraph` gives their node (a point at the start of a segment is the end of the
 * segment it continues). Nodes without one (HEAD aside) are drawn but not opened.
 */
function recordedTargets(state: LogState): Map<string, LogPoint> {
  const segments = new Map(state.segments.map((segment) => [segment.id, segment]));
  const targets = new Map<string, LogPoint>();
  for (const point of recordedPoints(state.events)) {
    let current: { segment: string; offset: number } = point;
    for (let segment = segments.get(current.segment); current.offset === 0 && segment?.base; ) {
      current = segment.base;
      segment = segments.get(current.segment);
    }
    const key = `${current.segment}:${current.offset}`;
    if (!targets.has(key) && point.position > 0) targets.set(key, point);
  }
  return targets;
}

function recordedPoints(events: readonly HistoryEvent[]): LogPoint[] {
  return events.flatMap((event) =>
    event.kind === "checkpoint"
      ? [event.checkpoint.point]
      : event.kind === "rollback"
        ? [event.from, event.to]
        : [event.from],
  );
}

/** Threads forked from `parentId`, reading at most `MAX_FORK_SCAN` threads of the store. */
async function findForkTips(
  store: ThreadStore,
  parentId: string,
): Promise<{ tips: ForkTip[]; scanned: number; incomplete: boolean }> {
  const tips: ForkTip[] = [];
  let scanned = 0;
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: 50, ...(cursor === undefined ? {} : { cursor }) });
    for (const item of page.items) {
      if (item.id === parentId) continue;
      scanned++;
      const thread = await store.get(item.id).catch(() => undefined);
      const tip = thread ? await forkTipOf(thread, parentId) : undefined;
      if (tip) tips.push(tip);
    }
    cursor = page.cursor;
  } while (cursor !== undefined && scanned < MAX_FORK_SCAN);
  return { tips, scanned, incomplete: cursor !== undefined };
}

/** A message's first text, one line, short: what a graph node shows beside it. */
export function excerptOf(message: Message): string {
  for (const content of message.contents) {
    if (content.type === "text" && typeof content.text === "string") return clip(content.text);
    if (content.type === "function_call") return clip(`${String(content.name)}(…)`);
    if (content.type === "function_result") return "tool result";
    if (content.type === "error") return clip(`error: ${String(content.message)}`);
  }
  return message.contents[0]?.type ?? "";
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** One side of a comparison: the thread now, or as it was at a point. */
export interface ComparedSide {
  source: Readable;
  point: LogPoint | null;
  length: number;
}

/**
 * Two points of one thread: how many messages they share (found by bisection, one message read per
 * step, since points of one log share a prefix), and each side's messages after that.
 */
export async function compareSides(a: ComparedSide, b: ComparedSide): Promise<Comparison> {
  const idAt = async (side: ComparedSide, position: number) =>
    (await side.source.messages({ last: side.length - position, limit: 1 }))[0]?.id;
  let low = 0; // positions below `low` are shared
  let high = Math.min(a.length, b.length);
  while (low < high) {
    const middle = Math.floor((low + high + 1) / 2);
    if ((await idAt(a, middle - 1)) === (await idAt(b, middle - 1))) low = middle;
    else high = middle - 1;
  }
  const tail = (side: ComparedSide) =>
    side.length > low
      ? side.source.messages({ last: side.length - low, limit: MAX_PAGE })
      : Promise.resolve([]);
  const [messagesA, messagesB] = await Promise.all([tail(a), tail(b)]);
  return {
    shared: low,
    a: { point: a.point, length: a.length, messages: messagesA },
    b: { point: b.point, length: b.length, messages: messagesB },
    truncated: a.length - low > MAX_PAGE || b.length - low > MAX_PAGE,
  };
}

/** The id under which a thread's log lives in the store (a workflow's sub-thread has its own). */
export function logIdOf(thread: Thread): string | undefined {
  return LogThread.isInstance(thread) ? thread.id : undefined;
}
