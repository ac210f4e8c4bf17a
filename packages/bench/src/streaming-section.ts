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
in turns with the first. Written back to back, the deltas fill a batch by size: the store sees the reply's
begin (its segment, a commit), a batch or two, and the end (a commit that lands the message, and the reclaim of
the batches), against one commit for the whole reply; a reply a model streams over seconds costs about one batch
per \`flushMs\` more. The follow column writes ${followDeltas} deltas ${followGapMs} ms apart while a process of its own
follows the reply through another store on the same URL (fs: file watching; redis: pub/sub; postgres:
LISTEN/NOTIFY) and notes when each delta arrives; a delta waits up to \`flushMs\` in the writer's buffer first.

`;
}

/** Why issue 39's targets may be missed, for BENCHMARKS.md's notes (report.ts's `WHY`). */
export const STREAMING_WHY: Array<[RegExp, string]> = [
  [
    /reply streamed in deltas/,
    "A streamed reply is several durable steps where an append is one: `beginMessage` reads the record (to end lapsed replies and check the id), makes the reply's segment and commits its entry; each batch is an import; `end` commits the message and reclaims the batches (fs: under `references.lock`; postgres: a transaction each, each with its WAL flush). Written back to back, that is 5–6 store round trips against one, and the ratio follows the store's cost of a durable step (highest on postgres, lowest on redis). It is a cost per reply, not per token: a reply a model streams over seconds pays it over those seconds, one batch per `flushMs`. Not profiled further; meeting 1.5× would need the begin and end folded into the batches (no commit of the record until the end).",
  ],
  [
    /follow from another process/,
    "Measured while other sessions shared the machine's 2 cores (load average about 20): a delta waits up to `flushMs` (50 ms) in the writer's buffer, then its batch is written and announced, and the follower wakes and reads it, and under that load each step queues behind other processes. Not re-measured on an idle machine.",
  ],
];
