import type { LogState } from "../local/log-state.js";
import type { Message } from "../message.js";
import type { HistoryEvent } from "../thread.js";

type Segment = LogState["segments"][number];
type Place = { segment: string; offset: number; position?: number };

/** A point of a thread's log worth drawing: its end, a checkpoint, a rollback's ends, a branch point. */
export interface HistoryNode {
  key: string;
  /** Messages in the thread at this point; the last of them is `message`. */
  position: number;
  segment?: string;
  offset?: number;
  /** The node this one continues from. */
  parent?: string;
  labels: string[];
  head: boolean;
  message?: Message;
  /** Larger is more recent: orders branches newest first. */
  recency: number;
}

/** A thread forked from this one, drawn as a branch tip at the point it was forked from. */
export interface ForkTip {
  id: string;
  from: Place;
  length: number;
  last?: Message;
}

/**
 * The tree of a thread's history from its export: nodes for the end (HEAD), checkpoints, both ends of
 * each rollback, the fork it came from, forks of it, and every point where a segment branches off
 * another. Returned children first, the HEAD's branch leftmost, ready for `drawGraph`.
 */
export function historyGraph(state: LogState, forks: readonly ForkTip[] = []): HistoryNode[] {
  const segments = new Map(state.segments.map((segment) => [segment.id, segment]));
  const nodes = new Map<string, HistoryNode>();
  const place = (point: Place, recency = 0): HistoryNode => {
    const normal = normalize(point, segments);
    const key = `${normal.segment}:${normal.offset}`;
    let node = nodes.get(key);
    if (!node) {
      const segment = segments.get(normal.segment);
      node = {
        key,
        segment: normal.segment,
        offset: normal.offset,
        position: segment ? segment.start + normal.offset : (point.position ?? 0),
        labels: [],
        head: false,
        ...(segment && normal.offset > 0 ? { message: segment.messages[normal.offset - 1] } : {}),
        recency,
      };
      nodes.set(key, node);
    }
    node.recency = Math.max(node.recency, recency);
    return node;
  };
  const head = place(state.end, Number.POSITIVE_INFINITY);
  head.head = true;
  head.labels.push("HEAD");
  state.events.forEach((event, index) => {
    labelEvent(event, index + 1, place);
  });
  for (const fork of forks) {
    const parent = place(fork.from);
    nodes.set(`fork:${fork.id}`, {
      key: `fork:${fork.id}`,
      position: fork.length,
      parent: parent.key,
      labels: [`fork ${fork.id}`],
      head: false,
      ...(fork.last ? { message: fork.last } : {}),
      recency: -1,
    });
  }
  linkSegments(nodes, segments, place);
  return walkOrder([...nodes.values()]);
}

function labelEvent(
  event: HistoryEvent,
  recency: number,
  place: (point: Place, recency?: number) => HistoryNode,
) {
  if (event.kind === "checkpoint") {
    const { id, label } = event.checkpoint;
    place(event.checkpoint.point, recency).labels.push(label === undefined ? id : `${id} "${label}"`);
  } else if (event.kind === "rollback" && event.branch) {
    // An edit, regenerate or switch: the branch left is a version of a message, reachable by `skein switch`.
    const { reason, left, entered, position } = event.branch;
    const verb = reason === "switch" ? "switched" : reason === "edit" ? "edited" : "regenerated";
    const leftName = left === undefined ? "an empty branch" : `version ${left}`;
    place(event.from, recency).labels.push(`r${event.revision}: ${leftName} of #${position + 1} (${verb})`);
    if (reason !== "switch") {
      const name = entered === undefined ? "" : ` to ${entered}`;
      place(event.to, recency).labels.push(`r${event.revision}: #${position + 1} ${verb}${name} here`);
    }
  } else if (event.kind === "rollback") {
    place(event.from, recency).labels.push(`r${event.revision}: abandoned`);
    place(event.to, recency).labels.push(`r${event.revision}: rolled back here from #${event.from.position}`);
  } else {
    place(event.from, recency).labels.push(`forked from ${event.parentId}`);
  }
}

/** A point at offset 0 of a segment is the same place as the end of what the segment continues. */
function normalize(point: Place, segments: Map<string, Segment>): Place {
  let current: Place = point;
  for (let segment = segments.get(current.segment); current.offset === 0 && segment?.base; ) {
    current = segment.base;
    segment = segments.get(current.segment);
  }
  return current;
}

/** Each node continues from the previous node on its segment, else from where its segment branched off. */
function linkSegments(
  nodes: Map<string, HistoryNode>,
  segments: Map<string, Segment>,
  place: (point: Place) => HistoryNode,
) {
  // Branch points add nodes on other segments; add them all before linking neighbours.
  const seen = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const node of [...nodes.values()]) {
      if (node.segment === undefined || seen.has(node.segment)) continue;
      seen.add(node.segment);
      grew = true;
      const segment = segments.get(node.segment);
      if (segment?.base) place(segment.base);
      else if (segment) place({ segment: segment.id, offset: 0 }).labels.push("start");
    }
  }
  const bySegment = new Map<string, HistoryNode[]>();
  for (const node of nodes.values()) {
    if (node.segment !== undefined)
      bySegment.set(node.segment, [...(bySegment.get(node.segment) ?? []), node]);
  }
  for (const [id, group] of bySegment) {
    group.sort((a, b) => (a.offset ?? 0) - (b.offset ?? 0));
    const base = segments.get(id)?.base;
    group.forEach((node, index) => {
      const previous = group[index - 1];
      if (previous) node.parent = previous.key;
      else if (base && node.offset !== 0) node.parent = place(base).key;
    });
  }
}

/** Children before parents, each subtree together, the most recent branch (HEAD's) first. */
function walkOrder(nodes: HistoryNode[]): HistoryNode[] {
  const children = new Map<string, HistoryNode[]>();
  const roots: HistoryNode[] = [];
  for (const node of nodes) {
    if (node.parent === undefined) roots.push(node);
    else children.set(node.parent, [...(children.get(node.parent) ?? []), node]);
  }
  const newest = new Map<string, number>();
  for (const node of postOrder(roots, children)) {
    const below = (children.get(node.key) ?? []).map((child) => newest.get(child.key) ?? 0);
    newest.set(node.key, Math.max(node.recency, ...below));
  }
  return postOrder(
    roots,
    children,
    (a, b) => (newest.get(b.key) ?? 0) - (newest.get(a.key) ?? 0) || b.position - a.position,
  );
}

/** Iterative, so a history with thousands of points cannot overflow the stack. */
function postOrder(
  roots: HistoryNode[],
  children: Map<string, HistoryNode[]>,
  compare?: (a: HistoryNode, b: HistoryNode) => number,
): HistoryNode[] {
  const sorted = (list: HistoryNode[]) => (compare ? [...list].sort(compare) : [...list]);
  const order: HistoryNode[] = [];
  const stack = sorted(roots)
    .reverse()
    .map((node) => ({ node, expanded: false }));
  while (stack.length > 0) {
    const { node, expanded } = stack.pop() as { node: HistoryNode; expanded: boolean };
    if (expanded) {
      order.push(node);
      continue;
    }
    stack.push({ node, expanded: true });
    for (const child of sorted(children.get(node.key) ?? []).reverse())
      stack.push({ node: child, expanded: false });
  }
  return order;
}
