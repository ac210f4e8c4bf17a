import { formatMicros } from "./measure.js";
import type { MeasuredAt } from "./sized-tables.js";
import type { STREAMING_SIZES, StreamingRow } from "./streaming-scenario.js";

/** Issue 39's figures: a reply streamed vs appended whole, and `follow`'s latency across processes. */
export interface StreamingFigures {
  measured: MeasuredAt;
  sizes: typeof STREAMING_SIZES;
  flushMs: number;
  rows: StreamingRow[];
}

type Table = [string[], string[][]];

const streamedRatio = (row: StreamingRow) =>
  row.wholeMicros && row.streamedMicros ? row.streamedMicros / row.wholeMicros : undefined;

export function streamingTable(figures: StreamingFigures): Table {
  const { tokens, deltaTokens } = figures.sizes;
  return [
    [
      "store",
      `${tokens.toLocaleString("en-US")}-token reply appended whole`,
      `streamed in ${deltaTokens}-token deltas`,
      "ratio",
      "follow, other process: median delta latency",
      `vs 2 × flushMs (${2 * figures.flushMs} ms)`,
      "note",
    ],
    figures.rows.map((row) => [
      row.store,
      row.wholeMicros === undefined ? "—" : formatMicros(row.wholeMicros),
      row.streamedMicros === undefined ? "—" : formatMicros(row.streamedMicros),
      streamedRatio(row)?.toFixed(2).concat("×") ?? "—",
      row.followMedianMs === undefined
        ? "—"
        : `${row.followMedianMs.toFixed(1)} ms (${row.followDeltas} deltas)`,
      row.followMedianMs === undefined ? "—" : `${(row.followMedianMs / (2 * figures.flushMs)).toFixed(2)}×`,
      row.note ?? "",
    ]),
  ];
}

/** Issue 39's targets: streamed ≤ 1.5× whole; the follow latency within 2 × flushMs (reported). */
export function streamingTargets(
  figures: StreamingFigures | undefined,
): Array<[string, number | undefined, number]> {
  if (!figures) return [];
  return figures.rows.flatMap((row) => [
    [`${row.store} reply streamed in deltas ≤ 1.5× appended whole`, streamedRatio(row), 1.5] as [
      string,
      number | undefined,
      number,
    ],
    ...(row.followMedianMs === undefined
      ? []
      : [
          [
            `${row.store} follow from another process: median ≤ 2 × flushMs`,
            row.followMedianMs / (2 * figures.flushMs),
            1,
          ] as [string, number, number],
        ]),
  ]);
}

/** The section of BENCHMARKS.md, its tables drawn by `table`. */
export function streamingMarkdown(
  figures: StreamingFigures | undefined,
  measuredLine: (measured: MeasuredAt) => string,
  table: (headers: string[], rows: string[][]) => string,
): string {
  if (!figures) return "";
  const { tokens, deltaTokens, followDeltas, followGapMs } = figures.sizes;
  return `## Streaming replies (issue 39)

${measuredLine(figures.measured)}

${table(...streamingTable(figures))}

The whole column appends a ${tokens.toLocaleString("en-US")}-token reply (about 4 characters a token) in one
\`append\`; the streamed column makes the same reply with \`beginMessage\`, ${tokens / deltaTokens} \`write\`s of
${deltaTokens} tokens written back to back, and \`end\` (default \`flushMs\` ${figures.flushMs}, \`maxBatchBytes\` 16 KiB),
in turns with the first. Written back to back, the deltas fill one batch by size (the reply is about 21 KB of
JSON): the store sees the reply's begin (one commit of the record, which holds the reply's entry), one batch (its
segment's first write), and the end (the last batch, a commit that lands the message, and the reclaim of the
batches, which is in that commit's statement on postgres), against one commit for the whole reply; a reply a model
streams over seconds costs about one batch per \`flushMs\` more. The follow column writes ${followDeltas} deltas ${followGapMs} ms apart while a process of its own
follows the reply through another store on the same URL (fs: file watching; redis: pub/sub; postgres:
LISTEN/NOTIFY) and notes when each delta arrives; a delta waits up to \`flushMs\` in the writer's buffer first.

`;
}

/** Why issue 39's targets may be missed, for BENCHMARKS.md's notes (report.ts's `WHY`). */
export const STREAMING_WHY: Array<[RegExp, string]> = [
  [
    /^fs reply streamed in deltas/,
    "fs: the begin and end commits rewrite the record's file (a context change), where a plain append writes the head segment and the catalogue line; the batch makes a segment of its own (a directory and files, under `references.lock`) and the reclaim removes it under the same lock. What is left is the floor of this design, not overhead: a reply that readers and other processes see while it streams, and that a second `beginMessage` is refused against, needs a durable write before its end (the record's entry: one commit), and one at its end (the message); and its deltas go to batches as they come (two here: one filled by `maxBatchBytes`, 16 KiB, and the rest at `end`, so that followers get every delta as a delta), so its content is sent twice, once in the batches and once in the message, because the log stores a message as one unit. Steps already taken out (session 13, each checked by a test that counts them): the read and the id lookup at begin (the begin commits on the record the thread holds, pinned to its revision), the empty segment made at begin, the read at end, the reclaim when no batch was written, and waiting for followers' wake-ups. Going lower needs the message made from its batches where they are stored (a Lua script or SQL that joins the deltas; impossible for encrypted stores, whose batches are sealed by the client) or the begin entry written by the first batch's own step; neither is done.",
  ],
  [
    /^redis reply streamed in deltas/,
    "redis: five scripts (begin, two batches, end, reclaim) against one, and the reply's content sent twice; wake-ups (PUBLISH) go on the same connection without being waited for. The floor of the design and the steps taken out: as for fs reply streamed in deltas above.",
  ],
  [
    /^postgres reply streamed in deltas/,
    "postgres: each step is now one statement, as an append is (begin: the record row's context; each batch: its rows, the first with its segment row; end: the message, the context and the reclaim of the batches in one statement), so four statements against one; wake-ups (`pg_notify`) are sent without being waited for, each on a pooled connection of its own. The floor of the design and the steps taken out: as for fs reply streamed in deltas above.",
  ],
  [
    /follow from another process/,
    "Measured while other sessions shared the machine's 2 cores (load average about 20): a delta waits up to `flushMs` (50 ms) in the writer's buffer, then its batch is written and announced, and the follower wakes and reads it, and under that load each step queues behind other processes. Not re-measured on an idle machine.",
  ],
];
