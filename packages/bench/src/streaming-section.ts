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
segment's first write), and the end (a commit that lands the message, with the deltas still buffered in it and
not in a last batch, and the reclaim of the batch, which is in that commit's own step on postgres and redis),
against one commit for the whole reply; a reply a model
streams over seconds costs about one batch per \`flushMs\` more. The follow column writes ${followDeltas} deltas ${followGapMs} ms apart while a process of its own
follows the reply through another store on the same URL (fs: file watching; redis: pub/sub; postgres:
LISTEN/NOTIFY) and notes when each delta arrives; a delta waits up to \`flushMs\` in the writer's buffer first.

`;
}

/** Why issue 39's targets may be missed, for BENCHMARKS.md's notes (report.ts's `WHY`). */
export const STREAMING_WHY: Array<[RegExp, string]> = [
  [
    /^fs reply streamed in deltas/,
    "fs: the begin and end commits rewrite the record's file (a context change), where a plain append writes the head segment and the catalogue line; the batch makes a segment of its own (a directory and files, under `references.lock`) and the reclaim removes it under the same lock. Since session 14 the begin and the batch are interim writes (`LogChange.interim`, `SegmentWriteOptions.interim`): the batch waits for no fsync and the begin flushes only its record's content, so a reply costs 6 disk flushes where it cost 12 (strace; a whole append costs 2), and the reclaim is 4 file-system calls instead of 22; what is left is the number of file operations (about 25 awaited calls against 2). What is left is the floor of this design, not overhead: a reply that readers and other processes see while it streams, and that a second `beginMessage` is refused against, needs a write before its end (the record's entry: one commit), and one at its end (the message); and its deltas go to batches as they come (one here, filled by `maxBatchBytes`, 16 KiB; the rest lands in the message at `end`, from which followers complete what they read), so its content is sent twice, once in the batches and once in the message, because the log stores a message as one unit. Steps already taken out (session 13, each checked by a test that counts them): the read and the id lookup at begin (the begin commits on the record the thread holds, pinned to its revision), the empty segment made at begin, the read at end, the reclaim when no batch was written, and waiting for followers' wake-ups. Going lower needs the message made from its batches where they are stored (a Lua script or SQL that joins the deltas; impossible for encrypted stores, whose batches are sealed by the client) or the begin entry written by the first batch's own step; neither is done. Session 15 probe (150 replies, each beside a whole append, load average 4–6): begin 2.3 ms, the 200 writes with their batch 2.0 ms, end 5.0 ms, whole append 2.1 ms; of the end, the reclaim (`dropSegment`) took about 2.2 ms. strace per reply: 76 statx, 30 openat, 17 unlink, 8 link, 4 fsync and 2 fdatasync, against about 3 openat, 2 fdatasync, 1 link and 1 unlink for a whole append: most of the calls are the lock protocol (the thread's lock for the begin and the end, `references.lock` for the batch and the reclaim: a lock file made, linked, checked twice with statx, then three unlinks), not the reply's data. Leaving out the `segments/` flush after an interim segment's reclaim was tried and showed no difference in that noise (not kept). The next cut on fs is the reclaim inside the end's commit, under the thread's lock, as redis and postgres do it (`reclaimsInCommit`): one lock cycle fewer; it touches the commit path and is not done.",
  ],
  [
    /^redis reply streamed in deltas/,
    "redis: three scripts, one per step (begin; the batch, which no longer checks first that its segment exists; end, whose commit script also deletes the batch's keys), against one, where session 13 had seven round trips (five scripts and two EXISTS, plus an LRANGE for each later batch). Each is a round trip that costs about what the whole append's does: INFO commandstats gave about 120 µs of server time per script (the four of a run together), and on the client a probe timed the begin's commit at 0.31 ms, the batch at 0.31 ms and the end at 0.49 ms beside 0.50 ms for the whole append (load average about 9). So the ratio is about the number of round trips, 3, less what the whole append's larger script costs more. The reply's content is sent twice (the 16 KiB batch and the message); wake-ups (PUBLISH) go on the same connection without being waited for. Going lower needs fewer round trips: the end sent right behind a batch still in flight (one connection keeps their order, but thread-core waits for the batch so that the reclaim cannot come before it on stores that do not), or no batch for a reply written faster than `flushMs`. The floor of the design: as for fs reply streamed in deltas above. Session 15 checked whether the begin costs more than a small write (the encryption bench's ~0.10 ms plain append suggested 3×): it does not. Alternated in one run (load average 0.5–1.7): the begin 0.24–0.40 ms beside 0.22–0.34 ms for a small plain append and 0.08–0.27 ms for a PING; SLOWLOG gave 43 µs of server time for the begin's script, 54 µs for the batch's, 137 µs for the end's (which also deletes the batch's keys) and 124 µs for the whole append's (load average 4). The begin is one EVALSHA with no read before it and creates no key of the batch's segment (its first batch does); the ~0.10 ms came from another run (its load, and whether it was the concurrent row's per-append figure, not checked): beside a small append timed in the same run, the begin costs about the same. The 200 `write` calls themselves cost 0.13–0.24 ms of thread-core's CPU (memory store), about a third of a whole append; making `write` a plain function for a buffered delta showed no difference within the noise (not kept).",
  ],
  [
    /^postgres reply streamed in deltas/,
    "postgres: three statements (begin: the record row's context; the batch: its rows with its segment row; end: the message, the context and the reclaim of the batch), against one, plus two `pg_notify` statements (the wake-ups after the batch and the end, sent without being waited for, each on a pooled connection of its own, sharing the server's cores with the next step). Each statement costs the server about what the whole append does: EXPLAIN ANALYZE gave 1.2–1.3 ms of execution for each of the begin, the batch and the end at load average about 9, and a probe timed them at 1.9, 2.6 and 3.7 ms on the client beside 2.5 ms for the whole append. The batch and the end now send their one message as plain parameters, not one-element arrays (pg escapes a 24 KB JSON array element and the server parses it again: 1.57 vs 0.72 ms per insert). The begin and the batches commit with `synchronous_commit` off (`interim`, adapter-postgres README), which saves their WAL flush on a production server; the bench's server runs with `fsync` and `synchronous_commit` off already (scripts/postgres-server.mjs), so this row cannot show it. The floor of the design: as for fs reply streamed in deltas above. Session 15 probe (a server of its own, 150 replies, load average about 5): the begin 0.83 ms beside 0.70 ms for a small plain append and 0.30 ms for `SELECT 1`; the 200 writes with their batch 0.89 ms; the end 1.44 ms beside 1.11 ms for the whole append. Each step is one statement (reply-statements.test.ts): no round trip is left to remove, only the steps themselves.",
  ],
  [
    /follow from another process/,
    "Measured while other sessions shared the machine's 2 cores (load average about 20): a delta waits up to `flushMs` (50 ms) in the writer's buffer, then its batch is written and announced, and the follower wakes and reads it, and under that load each step queues behind other processes. Not re-measured on an idle machine.",
  ],
];
