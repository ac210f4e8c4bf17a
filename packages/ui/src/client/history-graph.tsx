import { useEffect, useState } from "preact/hooks";
import type { Comparison, GraphNode, HistoryGraphData, Message } from "../api-types.js";
import { errorText, getJson } from "./api-client.js";
import { MessageItem, pairCalls } from "./message-item.js";
import { MessageWindow } from "./message-window.js";
import { href } from "./route.js";
import type { ThreadRef } from "./thread-ref.js";
import { WriteButtons } from "./write-buttons.js";

const ROW = 34;
const LANE = 22;
const PAD = 16;

interface HistoryGraphProps {
  thread: ThreadRef;
  version?: string;
  revision: number | null;
  write: boolean;
  onWritten: () => void;
}

/** The fork / checkpoint / rollback tree as SVG; a click shows the thread as it was there, two can be compared. */
export function HistoryGraph({ thread, version, revision, write, onWritten }: HistoryGraphProps) {
  const [graph, setGraph] = useState<HistoryGraphData | undefined>(undefined);
  const [forks, setForks] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [selected, setSelected] = useState<GraphNode | undefined>(undefined);
  const [marked, setMarked] = useState<GraphNode | undefined>(undefined);
  const [comparison, setComparison] = useState<Comparison | undefined>(undefined);

  useEffect(() => {
    let current = true;
    getJson<HistoryGraphData>("/api/graph", { ...thread, forks: forks || undefined })
      .then((result) => {
        if (!current) return;
        setGraph(result);
        setError(undefined);
      })
      .catch((caught) => current && setError(errorText(caught)));
    return () => {
      current = false;
    };
  }, [thread.id, thread.scope, thread.sub, forks, version]);

  const choose = (node: GraphNode) => {
    setSelected(node);
    setComparison(undefined);
  };
  const compare = async (a: GraphNode, b: GraphNode) => {
    try {
      setComparison(
        await getJson<Comparison>("/api/compare", {
          ...thread,
          a: pointParameter(a),
          b: pointParameter(b),
        }),
      );
      setError(undefined);
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  if (error && !graph) return <div class="error-banner">{error}</div>;
  if (!graph) return <div class="muted">loading…</div>;
  const columns = Math.max(1, ...graph.nodes.map((node) => node.column + 1));
  const byKey = new Map(graph.nodes.map((node) => [node.key, node]));
  const x = (node: GraphNode) => PAD + node.column * LANE;
  const y = (node: GraphNode) => PAD + node.row * ROW;
  const textX = PAD + columns * LANE + 8;
  return (
    <section class="history">
      <div class="window-bar">
        <label>
          <input type="checkbox" checked={forks} onChange={() => setForks(!forks)} /> forks of this thread
        </label>
        {forks ? (
          <span class="muted">
            {graph.forksScanned} threads read
            {graph.forksScanIncomplete ? " (stopped early: a large store)" : ""}
          </span>
        ) : null}
        {marked ? <span class="muted">marked #{marked.position} for comparison</span> : null}
      </div>
      {error ? <div class="error-banner">{error}</div> : null}
      <svg
        class="graph"
        role="img"
        aria-label="history graph"
        width="100%"
        height={PAD * 2 + graph.nodes.length * ROW - ROW + 8}
      >
        {graph.nodes.map((node) => {
          const parent = node.parent ? byKey.get(node.parent) : undefined;
          if (!parent) return null;
          const bend = y(parent) - ROW / 2;
          return (
            <path
              key={`edge-${node.key}`}
              class={`edge${node.labels.some((label) => label.endsWith("abandoned")) ? " abandoned" : ""}`}
              d={`M ${x(node)} ${y(node)} L ${x(node)} ${Math.max(y(node), bend)} L ${x(parent)} ${y(parent)}`}
            />
          );
        })}
        {graph.nodes.map((node) => (
          // biome-ignore lint/a11y/useSemanticElements: inside an SVG a point cannot be a <button>
          <g
            key={node.key}
            class={`node${node.head ? " head" : ""}${selected?.key === node.key ? " selected" : ""}${node.forkId ? " fork-tip" : ""}${kindClass(node)}`}
            data-key={node.key}
            data-position={node.position}
            role="button"
            tabIndex={0}
            onClick={() => choose(node)}
            onKeyDown={(event) => {
              if (event.key === "Enter" || event.key === " ") choose(node);
            }}
          >
            <title>{node.labels.join(", ") || `#${node.position}`}</title>
            <rect class="hit" x={0} y={y(node) - ROW / 2} width="100%" height={ROW} />
            {node.forkId ? (
              <path class="dot" d={`M ${x(node)} ${y(node) - 7} l 7 7 l -7 7 l -7 -7 z`} />
            ) : (
              <circle class="dot" cx={x(node)} cy={y(node)} r={node.head ? 7 : 5.5} />
            )}
            <text x={textX} y={y(node) + 4}>
              <tspan class="position">#{node.position}</tspan>
              {node.labels.map((label) => (
                <tspan key={label} class="label">
                  {` ${label}`}
                </tspan>
              ))}
              {node.excerpt ? <tspan class="excerpt">{`  ${node.role}: ${node.excerpt}`}</tspan> : null}
            </text>
          </g>
        ))}
      </svg>
      {selected ? (
        <div class="snapshot">
          <div class="window-bar">
            <b>
              {selected.forkId
                ? `fork ${selected.forkId}`
                : selected.head
                  ? `the thread now, #${selected.position}`
                  : `the thread as it was at #${selected.position} (read-only)`}
            </b>
            {selected.forkId ? (
              <a
                class="button"
                href={href("thread", { id: selected.forkId, scope: thread.scope, tab: "history" })}
              >
                open fork
              </a>
            ) : null}
            {selected.forkedFrom ? (
              <a
                class="button"
                href={href("thread", { id: selected.forkedFrom, scope: thread.scope, tab: "history" })}
              >
                open parent
              </a>
            ) : null}
            {opens(selected) ? (
              <button type="button" onClick={() => setMarked(selected)}>
                mark for comparison
              </button>
            ) : null}
            {marked && opens(selected) && marked.key !== selected.key ? (
              <button type="button" onClick={() => compare(marked, selected)}>
                compare with #{marked.position}
              </button>
            ) : null}
            {write && opens(selected) && !thread.sub ? (
              <WriteButtons
                thread={thread}
                revision={revision}
                {...(selected.point ? { point: selected.point } : { atEnd: true })}
                onWritten={onWritten}
              />
            ) : null}
          </div>
          {comparison ? (
            <ComparisonView comparison={comparison} />
          ) : selected.head ? (
            <MessageWindow thread={thread} version={version} compact />
          ) : selected.point ? (
            <MessageWindow key={selected.key} thread={thread} point={selected.point} compact />
          ) : selected.forkId ? null : (
            <p class="muted">
              {selected.position === 0
                ? "The thread's start: no messages yet."
                : "A branch point: open one of the recorded points around it."}
            </p>
          )}
        </div>
      ) : (
        <p class="muted">Click a point to see the thread as it was there.</p>
      )}
    </section>
  );
}

/** The HEAD is the thread now; other nodes open through the point their history recorded. */
function opens(node: GraphNode): boolean {
  return node.head || node.point !== undefined;
}

function pointParameter(node: GraphNode): string {
  return node.point && !node.head ? JSON.stringify(node.point) : "head";
}

function kindClass(node: GraphNode): string {
  if (node.checkpoint) return " checkpoint";
  if (node.labels.some((label) => label.endsWith("abandoned"))) return " abandoned";
  return "";
}

/** Two points side by side from where they part. */
function ComparisonView({ comparison }: { comparison: Comparison }) {
  return (
    <div class="comparison">
      <p class="muted">
        The first {comparison.shared} messages are the same on both sides.
        {comparison.truncated ? " Each side shows at most 200 messages after that." : ""}
      </p>
      <div class="columns">
        <Side
          title={`A: #${comparison.a.length}`}
          messages={comparison.a.messages}
          from={comparison.shared}
        />
        <Side
          title={`B: #${comparison.b.length}`}
          messages={comparison.b.messages}
          from={comparison.shared}
        />
      </div>
    </div>
  );
}

function Side({ title, messages, from }: { title: string; messages: Message[]; from: number }) {
  const pairs = pairCalls(messages);
  return (
    <div class="column compare-side">
      <h3>{title}</h3>
      {messages.length === 0 ? <div class="muted empty">nothing after the shared part</div> : null}
      {messages.map((message, index) => (
        <MessageItem
          key={message.id}
          message={message}
          position={from + index}
          results={pairs.results}
          calls={pairs.calls}
        />
      ))}
    </div>
  );
}
