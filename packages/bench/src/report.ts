import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { FILL_CONCURRENCY } from "./catalogue-scenario.js";
import { type Result, ratioRows } from "./compare.js";
import {
  ENCRYPTION_WHY,
  type EncryptionFigures,
  encryptionMarkdown,
  encryptionTargets,
} from "./encryption-section.js";
import { type ErasureFigures, erasureTable } from "./erasure-scenario.js";
import type { LangGraphRow } from "./langgraph-scenario.js";
import { formatMicros } from "./measure.js";
import { concurrencyTable, type RedisConcurrencyRow } from "./redis-concurrency.js";
import { type RetentionFigures, retentionSection } from "./retention-rows.js";
import type { RuntimeRow } from "./runtime-scenario.js";
import { SECTIONS } from "./section-filter.js";
import {
  type BranchingFigures,
  branchingTable,
  type CatalogueFigures,
  catalogueTable,
  fillTable,
  type MeasuredAt,
  orderingTable,
  sizedTargets,
} from "./sized-tables.js";
import type { StorageRow } from "./storage-scenario.js";
import {
  STREAMING_WHY,
  type StreamingFigures,
  streamingMarkdown,
  streamingTargets,
} from "./streaming-section.js";

export interface Figures {
  node: string;
  /** The machine measured on (cores, CPU, memory); absent in figures written before it was kept. */
  machine?: string;
  date: string;
  results: Result[];
  scaling: string[][];
  storage: StorageRow[];
  /** Absent in figures written before the LangGraph row existed. */
  langgraph?: LangGraphRow[];
  runtime: RuntimeRow[];
  /** Absent in figures written before the Redis concurrency rows existed. */
  redisConcurrency?: RedisConcurrencyRow[];
  /** Issue 37's rows; absent in figures written before they existed. */
  catalogue?: CatalogueFigures;
  /** Issue 38's rows; absent in figures written before they existed. */
  branching?: BranchingFigures;
  /** Issue 40's rows; absent in figures written before they existed. */
  retention?: RetentionFigures;
  /** Issue 39's rows; absent in figures written before they existed. */
  streaming?: StreamingFigures;
  /** Issue 40's erasure rows; absent in figures written before they existed. */
  erasure?: ErasureFigures;
  /** Issue 41's rows; absent in figures written before they existed. */
  encryption?: EncryptionFigures;
  /** Sections measured again alone (`--only`) since `date`: the section, and when and how. */
  remeasured?: Record<string, string>;
}

const require = createRequire(import.meta.url);
const PEERS = [
  "redis",
  "@langchain/redis",
  "@langchain/langgraph",
  "@langchain/core",
  "@openai/agents-core",
  "zod",
];

/** A peer's installed version; found from its entry point, as some packages do not export package.json. */
function version(name: string): string {
  let directory: string;
  try {
    directory = dirname(require.resolve(name));
  } catch {
    return "not installed";
  }
  for (; directory !== dirname(directory); directory = dirname(directory)) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
        name?: string;
        version: string;
      };
      if (manifest.name === name) return manifest.version;
    } catch {
      // No manifest at this level: look one directory up.
    }
  }
  return "installed, version unknown";
}

function table(headers: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((cell) => cell.replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Each target of the issues, checked against the figures. */
function targets(figures: Figures): string[][] {
  const find = (scenario: string, subject: string, metric: string) =>
    figures.results.find(
      (r) => r.scenario === scenario && r.subject.startsWith(subject) && r.metric.startsWith(metric),
    )?.micros;
  const ratio = (a?: number, b?: number) => (a !== undefined && b !== undefined ? a / b : undefined);
  const redisMemory = figures.storage.find((row) => row.subject.startsWith("skein redis"))?.ratio;
  const skeinOver = (scenario: string, other: string, metric: string) =>
    ratio(find(scenario, "skein", metric), find(scenario, other, metric));
  // Time per append over the raw atomic append's, from aggregate rates: below 1 / 0.7 is at least 0.7× its rate.
  const concurrencyOver = (processes: number) => {
    const row = figures.redisConcurrency?.find((candidate) => candidate.processes === processes);
    return row && 1 / row.ratio;
  };
  const rows: Array<[string, number | undefined, number]> = [
    [
      "redis append ≤ 1.3× the raw atomic Lua append, one writer",
      skeinOver("redis", "raw atomic append", "append"),
      1.3,
    ],
    [
      "redis 50 threads at once: skein ≥ 0.7× the raw atomic append's appends/s (time ratio ≤ 1.43)",
      concurrencyOver(1),
      1 / 0.7,
    ],
    [
      "redis 4 processes × 50 threads: skein ≥ 0.7× the raw atomic append's appends/s (time ratio ≤ 1.43)",
      concurrencyOver(4),
      1 / 0.7,
    ],
    [
      "redis append at least as fast as LangChain's (time ratio ≤ 1)",
      skeinOver("redis", "LangChain", "append"),
      1,
    ],
    ["redis full load ≤ 1.3× raw time", skeinOver("redis", "raw node-redis", "load"), 1.3],
    [
      "redis full load at least as fast as LangChain's (time ratio ≤ 1)",
      skeinOver("redis", "LangChain", "load"),
      1,
    ],
    ["redis memory ≤ 1.5× the raw JSON bytes", redisMemory, 1.5],
    [
      "memory store heap ≤ 1.5× the raw JSON bytes",
      figures.storage.find((row) => row.subject === "skein memory store, heap")?.ratio,
      1.5,
    ],
    ["postgres append ≤ 1.5× a raw single-row INSERT", skeinOver("postgres", "raw pg INSERT", "append"), 1.5],
    ["postgres full load ≤ 1.3× raw time", skeinOver("postgres", "raw pg INSERT", "load"), 1.3],
    ...(["back to back", "each in a new event-loop turn"] as const).map(
      (how): [string, number | undefined, number] => [
        `fs append (${how}) ≤ 3× a raw appendFile + fsync (in turns)`,
        ratio(
          find("fs commit", `skein fs append (${how})`, "append one message"),
          find("fs commit", "raw appendFile", "append one message"),
        ),
        3,
      ],
    ),
    ...(["fork", "checkpoint", "rollback"] as const).map(
      (operation): [string, number | undefined, number] => [
        `fs ${operation} ≤ 3× an fs append (in turns)`,
        ratio(
          find("fs commit", `skein fs ${operation}`, "history operation"),
          find("fs commit", "skein fs append", "history operation"),
        ),
        3,
      ],
    ),
    [
      "fs appends with 50 threads at once ≥ 3× the one-writer rate (time ratio ≤ 0.33)",
      ratio(
        find("fs commit", "skein fs, 50 threads", "time per append"),
        find("fs commit", "skein fs, one writer", "time per append"),
      ),
      1 / 3,
    ],
    [
      "parse ≤ 3× raw JSON.parse",
      ratio(find("parse", "parseThreadState", ""), find("parse", "JSON.parse", "")),
      3,
    ],
  ];
  rows.push(...sizedTargets(figures.catalogue, figures.branching));
  rows.push(...streamingTargets(figures.streaming));
  rows.push(...encryptionTargets(figures.encryption));
  for (const row of figures.scaling) {
    const value = Number.parseFloat(row[4] ?? "");
    if (row[0] !== "raw array") rows.push([`${row[0]} ${row[1]}: 100,000 / 10 ≤ 1.3`, value, 1.3]);
  }
  return rows.map(([name, value, limit]) => [
    name,
    value === undefined || Number.isNaN(value) ? "not measured" : `${value.toFixed(2)}×`,
    value === undefined || Number.isNaN(value) ? "—" : value <= limit ? "met" : "missed",
  ]);
}

/** This machine, as BENCHMARKS.md names it: cores, CPU model, memory. */
export function machineName(): string {
  return `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
}

/** BENCHMARKS.md: the machine, versions, every table with ratios, the targets, and how to reproduce. */
export function benchmarksMarkdown(figures: Figures): string {
  return `# skein benchmarks

Written by \`npm run bench\` on ${figures.date}. Medians of repeated rounds; ratios are to the first row of each
metric (the raw limit where there is one). These machines are noisy: read the ratios, not the absolute times.

- Machine: ${figures.machine ?? "not recorded"}; Node ${figures.node}
- Peers: ${PEERS.map((name) => `${name} ${version(name)}`).join(", ")}${remeasuredLines(figures)}

## Speed beside the raw limit and peers

${table(["scenario", "metric", "subject", "median", "ratio", "note"], ratioRows(figures.results))}

## Scaling: one operation at 10 vs 100,000 messages

${table(["store", "operation", "10 msgs", "100,000 msgs", "ratio"], figures.scaling)}

The raw-array row copies the last 20 of a plain array: its ratio is what a large live heap costs V8 itself,
the floor under every in-process store's ratio.

## Storage

${table(
  ["subject", "bytes", "per message", "ratio"],
  figures.storage.map((row) => [
    row.subject,
    String(row.bytes),
    row.perMessage.toFixed(0),
    `${row.ratio.toFixed(2)}×`,
  ]),
)}

## LangGraph checkpointers: one-message chat turns

${table(
  ["saver", "steps", "bytes", "per step", "seconds", "messages kept"],
  (figures.langgraph ?? []).map((row) => [
    row.subject,
    String(row.steps),
    String(row.bytes),
    row.bytesPerStep.toFixed(0),
    row.seconds.toFixed(2),
    String(row.messages),
  ]),
)}

MemorySaver keeps every checkpoint's whole state, so its bytes grow with the square of the conversation;
SkeinCheckpointSaver stores a channel only when LangGraph changed it, and a grown message list as its new
messages, so its bytes per step stay flat. Most of the time is LangGraph's own work on the whole message list
at each step, which every saver pays.

## Redis: many threads appended at once

${table(...concurrencyTable(figures.redisConcurrency ?? []))}

Each thread gets 100 appends one after another, all threads at once: skein through one store per process,
the raw atomic Lua append (revision + id check, RPUSH, the floor of the one-writer rows) through one node-redis
client per process. Rates are aggregate appends per second, the median round and the spread; the two subjects
run in turns. In the 4-process row every process is started first and all begin together.

## Runtime: thread-service, no-op runner, all threads at once

${table(
  ["store", "subject", "threads", "messages", "messages/s", "spread", "ratio", "per-thread order"],
  figures.runtime.map((row) => [
    row.store,
    row.subject,
    String(row.threads),
    String(row.messages),
    row.messagesPerSecond.toFixed(0),
    `${row.spread[0].toFixed(0)}–${row.spread[1].toFixed(0)}`,
    `${row.ratio.toFixed(2)}×`,
    row.orderVerified ? "verified" : "broken",
  ]),
)}

Every message of every thread is sent at once; the service runs at most 64 at a time (its \`concurrency\`), and
the floor appends the same messages straight to the store, each thread's in order, 64 at a time. The ratio is
time per message over the floor's: what the runtime (queues, leases, fencing, the record checks) costs per message.

${catalogueSection(figures.catalogue)}${branchingSection(figures.branching)}${retentionSection(figures.retention)}${streamingMarkdown(figures.streaming, measuredLine, table)}${erasureSection(figures.erasure)}${encryptionMarkdown(figures.encryption, measuredLine, table)}## Targets

${table(["target", "measured", "status"], targets(figures))}

## What a missed target means here

${missedNotes(targets(figures), figures)}

## Reproduce

\`\`\`sh
npm install && npm run bench            # full run: rewrites BENCHMARKS.md and bench-results.json
npm run bench -- --quick                # under two minutes, prints the tables only
npm run bench -- --only catalogue,branching   # those sections alone (any of: ${SECTIONS.join(", ")});
                                        # their figures replace the last ones in both files, the rest stays
npm run bench:render -w @skein/bench     # BENCHMARKS.md again from bench-results.json, nothing measured
\`\`\`

The Redis rows use \`REDIS_URL\` or start a throw-away \`redis-server\` on a free loopback port; the storage
rows measure databases 9 and 10 only when they are empty (a database holding keys is skipped, never wiped).
The catalogue and branching rows also start a throw-away 3-master Redis Cluster, and keep their Redis threads
under key prefixes and their PostgreSQL threads in schemas of their own, deleted afterwards.
`;
}

function remeasuredLines(figures: Figures): string {
  const entries = Object.entries(figures.remeasured ?? {});
  return entries.map(([section, when]) => `\n- Measured again alone: ${section}, ${when}`).join("");
}

function measuredLine(measured: MeasuredAt): string {
  return `Measured on ${measured.date} by \`${measured.command}\` on ${measured.machine}, Node ${measured.node}.`;
}

function erasureSection(erasure: ErasureFigures | undefined): string {
  if (!erasure) return "";
  return `## Erasure: one owner's threads (issue 40)

${measuredLine(erasure.measured)}

${table(...erasureTable(erasure.rows))}

Two fresh stores are filled alike: the owner's threads (two messages and a checkpoint each) and one thread of
another owner per ten. One is emptied of the owner by \`store.erase({ owner })\`, which first reads every record
of the store and its scopes to find them, deletes them, then lists the store again (reading only the records new
or changed since) so that a fork made meanwhile is not missed; the other by \`store.delete(id)\` for each id,
known beforehand. A first pair of stores a tenth the size warms both paths up, untimed; then five pairs (one with
\`--quick\`), the order of erase and deletes alternating from pair to pair, garbage collected before each step.
The times are medians, and the ratio is the median of the pairs' own ratios: both sides of a pair run moments
apart, under the same load. Rows measured before this method ("1, cold") are one cold run, erase first.
\`npm run bench -- --only erasure\`.

Erase also measures each thread for its report (\`bytes\`: the thread's stored record and the messages its
log reaches, read once along its chain), which the deletes one by one do not; it deletes with the record it
read for the plan (no second read) and counts bytes without encoding them. Where a delete costs well under a
millisecond (memory) erase's own reads (every record, each thread's messages, the second listing) weigh as
much as the deletes themselves, and the ratio sits near the 3× target; where each delete flushes or commits
(fs, PostgreSQL) it is well under. On Redis each of erase's reads was a round trip of its own (each
segment's info along the chain, the messages), where a delete is one read and one
script: the run of 2026-12-06 at load average about 22 measured 4.61×. Now the owner's chains are walked a
batch at a time, each segment's info is read once per erasure, and each thread is measured a window of 32
ahead of the deletes (which stay one at a time, fenced): those reads share round trips with each other and
with the deletes, fewer round trips per thread than deleting one by one (adapter-redis
\`erasure-round-trips.test.ts\`), and the ratio is 0.98–1.44× (load average 10–15).

The plan still reads every record of the store (O(store), not O(the owner's threads)): the owner's threads
are looked for in every scope, and the catalogue's owner index answers one scope at a time; other owners' forks
are found by the segments they continue, which no driver indexes. An index of forks by the segment they
continue, and an owner listing across scopes, would make it O(the owner's threads and their forks).

`;
}

function catalogueSection(catalogue: CatalogueFigures | undefined): string {
  if (!catalogue) return "";
  return `## Catalogue: one owner's newest threads (issue 37)

${measuredLine(catalogue.measured)}

${table(...catalogueTable(catalogue))}

Each store size is a store of its own, filled through \`store.create\` (empty threads with a title, ${FILL_CONCURRENCY} at
once); the owner's threads are spread evenly through the largest store, whose other threads belong to 10,000
other owners. The list is \`store.list({ owner, order: "updated", direction: "desc", limit: 20 })\`; the
10-thread store holds 10 of the owner's, so its page has 10 threads where the others have 20: the target is
held on the last ratio, the largest store beside the 1,000-thread one, where the owner holds 1,000 threads in
both and the page is the same. The note says how the store finds the page: its own
index, or thread-core's scan of every record (a store without an index), whose cost grows with the store.
The append row appends to one of the owner's threads, which moves it to the front of the owner's order.

${table(...orderingTable(catalogue))}

skein keeps every thread of a store in the store's last-change order, so none of its appends is free of
ordering: the nearest honest append "without" it is to a thread with no owner, which is in no owner's order.
Both threads are in the largest store, measured in turns. The raw floors of a bare append are the speed rows.

${table(...fillTable(catalogue))}

`;
}

function branchingSection(branching: BranchingFigures | undefined): string {
  if (!branching) return "";
  return `## Branching: edit, regenerate, switchTo, alternatives (issue 38)

${measuredLine(branching.measured)}

${table(...branchingTable(branching))}

The plain threads are fresh forks of a ${branching.sizes.small.toLocaleString("en-US")}- and a
${branching.sizes.large.toLocaleString("en-US")}-message thread for each row, so their history holds only that
row's own changes; before each timed edit (or regenerate) a new last message is appended, untimed, and that
message is edited. The third thread's last message was edited ${branching.sizes.edits.toLocaleString("en-US")}
times: edit, regenerate and switchTo work at that position, and each timed edit or regenerate adds a version
there (the note gives the count after each row). switchTo goes back and forth between the two newest versions.
\`alternatives\` lists every version at a position: on the plain threads 2, at the edited position all of
them, so its last ratio is the cost of that many versions (O(versions), as issue 38 has it), not held to 1.3.
"alternatives of a message never edited" lists the one version of the first message: its last column is what
a history of ${branching.sizes.edits.toLocaleString("en-US")} edits elsewhere costs it.

`;
}

/** Why each kind of missed target is missed, from profiling; printed only for targets missed in this run. */
const WHY: Array<[RegExp, string]> = [
  ...STREAMING_WHY,
  ...ENCRYPTION_WHY,
  [
    /1,000 edits at one position/,
    "Profiled (December 2026, node --cpu-prof on one store's operations at 1 vs 1,000 versions): edit, regenerate and switchTo used to rebuild the index of a thread's versions from its whole history for each new record (every event read again), and the memory store froze every event again on each commit. Now the index (thread-core src/local/branch-index.ts) is extended by each new event from the one the previous history had, a scope maps only new events, and memory freezes only the new one; thread-core's branch-version-reads.test.ts and memory-event-freeze.test.ts count the events read and the freeze checks and find them equal at 1 and 300 versions. What still grows with the history is the copy of the record's events array that each commit makes ([...events, event]: a pointer per event), and a first operation after another process changed the thread, which reads the history anew and indexes it once. A miss here that these do not explain has not been profiled.",
  ],
  [
    /^memory append keeping the owner's order/,
    "The memory store moves an owned thread in two last-change orders on each append, the store's and its owner's (memory-catalogue.ts), and a thread without an owner in one: a few microseconds on an append of about 20 µs.",
  ],
  [
    /\(scan: before the index\)/,
    "This store has no catalogue index yet in the code measured: thread-core's fallback (scanCatalogue) reads every record of the store for each page, so a page's cost grows with the store. The fs and redis catalogue indexes are being built; these rows are to be measured again once they are in.",
  ],
  [
    /^fs (fork|rollback) ≤/,
    "A fork or a rollback makes the thread a new head segment, durably, before its record points at it. strace counts, for a rollback, 10 files created, 2 directories, 4 links, 2 renames, 6 unlinks and 8 fsyncs (a fork: 11 files and 7 fsyncs), against a checkpoint's 2 files and 3 fsyncs and an append's lock file and 2 fdatasyncs (December 2026); every fsync is needed before the record points at what it flushes (the segment's files and directory, segments/, the references, the history, the staged record, then records/). Two properties of this machine's disk set the ratio: flushes issued at once barely overlap (packages/bench/src/fsync-probe.ts, each directory with a new entry, two runs at load under 1: one directory 619–703 µs, four at once 1150–1229 µs, seven at once 1620–1879 µs), and creating a file costs from 25–60 µs to over 1 ms, depending on the moment and on where the directory lies (this run's 'create an empty file' row: {file created}). In ten runs of the fs commit rows on 2 December 2026 at load average under 2 (nine of packages/bench/src/files-commit.ts and this full run, the last eight with the history lookup below), fork took 2.36–7.68× and rollback 3.47–8.44× an append beside them (medians 3.0× and 4.1×), and checkpoint 1.60–3.09×: the wide ratios came with slow file creation. Issue 24's passes cut what skein adds above that floor: the fence's staging directory became staged files beside the lock, small files are written at once, a history change looks up only its new points, newest events first (it read the whole history twice per checkpoint and rollback, so those grew with the thread's history), and reads share the files a commit keeps open (a rollback opened the head's files again through the thread pool). Meeting 3× an append on every run would take fewer files per new head (segment files made on first write, which moves a file creation and a directory fsync into the first append after every fork and rollback) or references without the store's references lock file; neither is done.",
  ],
  [
    /^redis append/,
    "An append that is atomic and idempotent cannot be a bare RPUSH, so the floor is the raw atomic append: a Lua script that checks the revision and the message id, pushes and bumps the revision. skein's append is one such script as well (one EVALSHA per append; a test counts them), and it adds, on the server, the head check (a concurrent rollback), the record's length and updatedAt, duplicates answered with the stored message and system messages indexed: five redis.calls against four, about 3 µs more server time per call (INFO commandstats, 12 vs 9 µs). On the client it adds making and checking the message (id, createdAt, JSON validation), the append plan and the new record: about 10 µs of CPU per append, measured with a client that answers at once, against the raw row's JSON.stringify. Profiling removed what was not needed (November 2026): fingerprints only where ids meet, no record read back, half the arguments for a plain append, then a timer and a Promise.race per call and node-redis' own per-command AbortSignal (one writer, per-append medians in turns: 1.6–2.3× → 1.3–1.5× the raw atomic append across runs on a loaded machine), the head-offset lookup and housekeeping awaits of a plain append, and tables built by the script for a one-message append (3–4 µs less per round trip, old and new script in turns). What remains is the message checks skein promises; matching a bare RPUSH or LangChain's unchecked LPUSH would mean giving up atomic, idempotent, validated appends.",
  ],
  [
    /^redis (50 threads|4 processes)/,
    "With 50 threads appended at once the Node process is the bottleneck, and the rate follows its CPU per append (process.cpuUsage over whole rounds, in turns): about 20 µs for the raw atomic append, which is node-redis' own work (encoding, the socket writes, the replies), and 25–30 µs for skein, down from 42–49 µs (November 2026: a setTimeout and Promise.race per call and node-redis' per-command AbortSignal.timeout cost 11–13 µs per append under load; one timer now bounds every pending call). Every append is still one round trip (one EVALSHA) and no lock or queue serialises different threads. The 10 µs left is skein's client work per append, the same 10 µs as one writer's (message id, createdAt and validation, the append plan, the script's arguments, the new record), so the CPU alone caps skein near 0.67× the raw rate even on an idle machine; on this shared 2-core machine, with other work running, the measured rate ratio moves with the scheduling from run to run. Reaching 0.7× would mean dropping the message checks on the client.",
  ],
  [
    /^postgres append/,
    "An append that is atomic and checked cannot be a bare INSERT, but that floor is not what misses the target: the smallest checked append, one statement that bumps the thread's revision only at the expected one (its row lock orders writers) and inserts the message under a unique (thread, id) index (the raw atomic append row), runs at 0.94–1.04× the INSERT as a named prepared statement, as skein's is, and at 2.24–2.45× sent unnamed (parsed and planned on every call), in three runs of packages/bench/src/postgres-append-profile.ts at load average ~4 (November 2026). In the same runs skein's driver commit (its statement and the driver around it) was 1.50–1.69× the INSERT and thread.append 2.28–2.36×. On the server (EXPLAIN ANALYZE with TIMING OFF, median of 300) the INSERT executes in 12–33 µs, the raw atomic append in 50–53 µs and skein's statement in 71–81 µs (the kind and head checks, ids as bytea, a third index for system messages). Client CPU per append, layer by layer (packages/bench/src/postgres-append-cpu.ts: process.cpuUsage over 300 appends, in turns, medians of 15 rounds, three runs): raw INSERT 31–40 µs, skein's statement through the store's connection 41–49 µs, the driver's commit 56–68 µs, thread.append 93–97 µs, against 102–126 µs for the previous version run in the same turns. A CPU profile found no transaction, SET, timer or listener of skein's around the statement and no re-Parse (one named statement per connection, on a generic plan); the largest client step after the socket write was pg copying the statement's { name, text, values } object property by property on every query, which the driver now avoids by handing pg a query object with a callback (and it no longer waits on the schema promise). What is left is spread out: thread-core's append path 28–40 µs of CPU (validating and normalizing the message, a sortable id that reads fresh random bytes in every new millisecond, so on every append at this rate: giving the ids saves 7–12 µs; the append plan), the driver's own work 12–19 µs (the JSON text, ids as bytea, the copy it returns, the row the statement returns), and skein's statement's extra 20–30 µs on the server. The 197–283 µs of client CPU measured before for skein's append were taken at load average ~24, where every microsecond costs more. Earlier (November 2026): version 1's PL/pgSQL function hashed every message of the head segment to check the ids (653 µs vs 75 µs, 8.7×, and an append at 100,000 messages 50× one at 10) and paid six statements plus RETURN QUERY; a plain append no longer writes the segment row either. Closing the rest means less per-append work in thread-core and a cheaper statement on the server, not giving up the atomic revision, head and id checks.",
  ],
  [
    /^redis memory/,
    "The message list costs about 1.03× the JSON; each message also has an entry in its segment's id hash (id → offset, about 75 bytes) for duplicate checks and lookups, and skein's own message ids are longer than the raw rows' short ids.",
  ],
  [
    /^fs append \(/,
    "An fs append is two fdatasyncs in order (the lines, then the index entries that commit them) inside a cross-process lock. Issue 24's third pass (December 2026) keeps a plain append's lock until the end of the event loop's turn, marked `.kept` so that another process takes it at once, and lets the next append to the thread in that turn reuse it and what the last append read (record, seal, tail, id buckets): back-to-back appends drop from about 43 file system calls on the event loop to about 11, and in turns against the previous build (fs-variants, three repeats, load ~6) the append fell from 4.33–4.47× to 2.01–2.09× the raw row and the event loop's CPU per append from 1120–1500 µs to 490–610 µs. An append that comes in a later turn of the event loop (one request's single append) still takes and releases the lock file itself (about 11 calls, creating an inode): that is the 'each in a new event-loop turn' row, whose floor is the lock file created and removed plus the two ordered fdatasyncs (1.69–1.89× the raw row, packages/bench/src/fs-append-probe.ts, November 2026). That row follows the cost of a new file on the machine (this run's 'create an empty file' row: {file created}): in ten runs of the fs commit rows on 2 December 2026 it took 2.95–4.98× the raw row (median 3.7×), while back-to-back appends took 2.10–2.60×.",
  ],
  [
    /^fs appends with 50 threads/,
    "The 50 threads' rate is bound by the event loop's CPU per append, not by the disk or libuv's thread pool (UV_THREADPOOL_SIZE=32 was no faster, November 2026). Issue 24's third pass (kept locks and carried appends, see the fs append rows) cut that CPU to about 0.4–0.55× the previous build's for a thread appended back to back, and in turns (fs-variants concurrency, three repeats) the time ratio went from 0.52–0.58 (median 0.53) to 0.20–0.33 (median 0.32) at load 3.6–5.3, and a median of 0.32 (0.24–0.37) at load 7–12: at the target, without a margin. In ten runs of the fs commit rows on 2 December 2026 (load average under 2) the 50 threads' rate was 2.82–3.82× the one-writer rate, median 3.26× (time ratio 0.26–0.35, median 0.31), so a run lands on either side of the target. Each fdatasync's hand-off to the thread pool costs about 40 µs of the event loop here, two per append, now the largest step left; writing through O_DSYNC descriptors instead saved 10–20 µs per write in a micro-benchmark, not applied.",
  ],
  [
    /view\(|messages\(/,
    "Reads of the newest messages are dominated by round trips and, in process, by V8's heap: the raw-array row shows the same ratio with no store at all. The memory store also parses each message it returns from its stored JSON text (about 0.5 µs each), and the 10-message thread returns fewer messages than the 100,000-message one (10 for last 20, fewer still before an id), so its rows compare unequal work.",
  ],
];

function missedNotes(rows: string[][], figures: Figures): string {
  const missed = rows.filter((row) => row[2] === "missed");
  if (missed.length === 0) return "Every target was met in this run.";
  const created = figures.results.find((result) => result.subject.startsWith("create an empty file"))?.micros;
  // Each reason once, at its first row; later rows name that row.
  const given = new Map<string, string>();
  return missed
    .map((row) => {
      const why = (
        WHY.find(([pattern]) => pattern.test(row[0] ?? ""))?.[1] ?? "Not yet profiled."
      ).replaceAll("{file created}", created === undefined ? "not measured" : formatMicros(created));
      const first = given.get(why);
      const text = first === undefined ? why : `for the same reason as ${first} above.`;
      if (first === undefined) given.set(why, row[0] ?? "");
      return `- **${row[0]}** (${row[1]}): ${text}`;
    })
    .join("\n");
}
