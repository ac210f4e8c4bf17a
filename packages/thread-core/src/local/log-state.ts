import { z } from "zod";
import { catalogueOf, ownerProblem, titleProblem, withCatalogue } from "../catalogue/catalogue-fields.js";
import { InvalidThreadStateError, quoteUntrusted } from "../errors.js";
import { cloneJson } from "../json.js";
import { type Message, MessageListSchema, parseMessage } from "../message.js";
import type { LogState } from "../spec/log-state.js";
import type { HistoryEvent, LogPoint } from "../spec/thread.js";
import { ThreadStateSchema } from "../thread-state-schema.js";
import { TimestampSchema } from "../timestamp.js";
import type { Same } from "../type-equality.js";
import { type LogDriver, type LogRecord, newHeadSegment, type SegmentInfo } from "./log-driver.js";
import { readEach, SegmentChains } from "./segment-chain.js";

/**
 * A segment id as JSON may carry it: no control characters, which scoped stores use to keep tenants'
 * segments apart, so an imported log can never name another scope's segment.
 */
const SegmentIdSchema = z
  .string()
  .min(1)
  .max(256)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .regex(/^[^\u0000-\u001f\u007f-\u009f]+$/, "a segment id has no control characters");

const LogPointSchema = z.object({
  segment: SegmentIdSchema,
  offset: z.number().int().nonnegative(),
  position: z.number().int().nonnegative(),
});
const timestamp = TimestampSchema;
const CheckpointSchema = z.object({
  id: z.string().min(1),
  label: z.string().optional(),
  threadId: z.string().min(1),
  point: LogPointSchema,
  createdAt: timestamp,
});
const revision = z.number().int().nonnegative();
const SlotSchema = z.object({ segment: SegmentIdSchema, offset: z.number().int().nonnegative() });
/** What a rollback made by edit, regenerate or switchTo records (`BranchChange`). */
const BranchChangeSchema = z.object({
  reason: z.enum(["edit", "regenerate", "switch"]),
  position: z.number().int().nonnegative(),
  after: SlotSchema.nullable(),
  left: z.string().min(1).optional(),
  leftAt: SlotSchema.optional(),
  entered: z.string().min(1).optional(),
  enteredAt: SlotSchema.optional(),
  end: LogPointSchema,
});
export const HistoryEventSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("checkpoint"), checkpoint: CheckpointSchema, at: timestamp, revision }),
  z.object({
    kind: z.literal("rollback"),
    from: LogPointSchema,
    to: LogPointSchema,
    target: z.string(),
    at: timestamp,
    revision,
    branch: BranchChangeSchema.optional(),
  }),
  z.object({ kind: z.literal("fork"), parentId: z.string(), from: LogPointSchema, at: timestamp, revision }),
]);

/** A change applied under an operation id (`AppliedOperation`). */
const AppliedOperationSchema = z.object({
  id: z.string().min(1).max(256),
  revision,
  end: z.object({ segment: SegmentIdSchema, offset: z.number().int().nonnegative() }),
  messages: z.array(z.string()),
});

const SegmentStateSchema = z.object({
  id: SegmentIdSchema,
  base: z.object({ segment: SegmentIdSchema, offset: z.number().int().nonnegative() }).nullable(),
  start: z.number().int().nonnegative(),
  createdAt: timestamp,
  messages: MessageListSchema,
});

/** A local thread with its whole log: the `memory` type's JSON, and what `export` gives for any store. */
export const LogStateSchema = ThreadStateSchema.extend({
  createdAt: timestamp,
  updatedAt: timestamp.optional(),
  metadata: z.record(z.string(), z.json()).default({}),
  context: z.record(z.string(), z.json()).default({}),
  revision,
  /** The end of the thread: its messages are the chain ending here. */
  end: z.object({ segment: SegmentIdSchema, offset: z.number().int().nonnegative() }),
  segments: z.array(SegmentStateSchema),
  events: z.array(HistoryEventSchema).default([]),
  /** The last changes made with an operation id (absent when none was), so retries stay no-ops after an import. */
  operations: z.array(AppliedOperationSchema).optional(),
  /** Who the thread belongs to; absent in threads written before owners existed, which read as they are. */
  owner: z
    .string()
    .refine(
      (value) => ownerProblem(value) === undefined,
      "an owner has 1 to 256 characters, no control characters",
    )
    .optional(),
  /** What a sidebar shows for the thread. */
  title: z
    .string()
    .refine((value) => titleProblem(value) === undefined, "a title has at most 1,000 characters")
    .optional(),
  /** When the thread expires: it travels with the thread, so an imported copy expires when it did. */
  expiresAt: timestamp.optional(),
});
export type { LogState } from "../spec/log-state.js";

// The schema accepts exactly the type the spec declares; a change to one side alone fails the build here.
const schemaMatchesSpec: Same<z.infer<typeof LogStateSchema>, LogState> = true;
void schemaMatchesSpec;

/** A local thread in a store, referred to by id: the `fs` and `redis` types' JSON. */
export const LogReferenceStateSchema = ThreadStateSchema.extend({
  createdAt: timestamp,
  updatedAt: timestamp.optional(),
  revision: revision.optional(),
});

/** The points a thread's history refers to: checkpoints, both ends of rollbacks, the fork it came from. */
export function eventPoints(events: HistoryEvent[]): LogPoint[] {
  return events.flatMap((event) =>
    event.kind === "checkpoint"
      ? [event.checkpoint.point]
      : event.kind === "rollback"
        ? // A branch's end lies on the head the change made, which later rollbacks' `from` keep: no new segment.
          event.branch
          ? [event.from, event.to, event.branch.end]
          : [event.from, event.to]
        : [event.from],
  );
}

/** Every point a record needs kept: its end and its history's points. */
export function recordPoints(
  record: Pick<LogRecord, "events">,
  end: Pick<LogPoint, "segment" | "offset">,
): Array<Pick<LogPoint, "segment" | "offset">> {
  return [end, ...eventPoints(record.events)];
}

/** How many own messages of each segment the points reach, bases before the segments that continue them. */
export function neededSegments(
  points: Array<Pick<LogPoint, "segment" | "offset">>,
  info: (id: string) => SegmentInfo,
): Array<[SegmentInfo, number]> {
  const needed = new Map<string, number>();
  for (const point of points) {
    let current: { segment: string; offset: number } | null = point;
    while (current) {
      if ((needed.get(current.segment) ?? -1) >= current.offset) break;
      needed.set(current.segment, current.offset);
      current = info(current.segment).base;
    }
  }
  return [...needed.entries()]
    .map(([id, count]) => [info(id), count] as [SegmentInfo, number])
    .sort((a, b) => a[0].start - b[0].start || (a[0].base === null ? -1 : 1));
}

/** A local thread's record and segments as one self-contained JSON state. */
export function buildLogState(
  record: LogRecord,
  type: string,
  end: LogPoint,
  segments: Array<[SegmentInfo, Message[]]>,
): LogState {
  return {
    $type: type,
    $v: 1,
    id: record.id,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...catalogueOf(record.context),
    metadata: cloneJson(record.metadata) as LogState["metadata"],
    context: cloneJson(record.context) as LogState["context"],
    revision: record.revision,
    end: { segment: end.segment, offset: end.offset },
    segments: segments.map(([info, messages]) => ({ ...cloneJson(info), messages })),
    events: cloneJson(record.events),
    ...(record.operations?.length ? { operations: cloneJson(record.operations) } : {}),
  } as LogState;
}

/** Exports a local thread of any store with its whole history, reading only the segments it reaches. */
export async function exportLog(
  chains: SegmentChains,
  record: LogRecord,
  type = "memory",
): Promise<LogState> {
  const headInfo = await chains.info(record.head);
  const ranges = await chains.chain(record.head, record.length - headInfo.start);
  const end = chains.pointAt(ranges, SegmentChains.length(ranges));
  const points = recordPoints(record, end);
  // Every segment a point or its bases name, including one a point reaches at offset 0 (the empty head a
  // rollback or an import starts), which a chain of the messages before the point does not list.
  const infos = new Map<string, SegmentInfo>();
  for (const point of points) {
    for (let id: string | undefined = point.segment; id !== undefined && !infos.has(id); ) {
      const info = await chains.info(id);
      infos.set(id, info);
      id = info.base?.segment;
    }
  }
  const needed = neededSegments(points, (id) => infos.get(id) as SegmentInfo);
  const segments = await readEach(
    needed,
    async ([info, count]) =>
      [info, await chains.driver.readSegment(info.id, 0, count)] as [SegmentInfo, Message[]],
  );
  return buildLogState(record, type, end, segments);
}

/**
 * Writes an exported thread into a store's log under `id` (default: its own). Segments keep their ids,
 * so forks and checkpoints imported separately share them again; the thread gets a fresh head segment.
 */
export async function importLog(
  driver: LogDriver,
  state: LogState,
  id = state.id,
  /** The thread's type: the store's own, or a local type of the application's (`acme.ticket`). */
  type = driver.nativeType,
): Promise<LogRecord> {
  const segments = orderSegments(state);
  const listed = new Set(segments.map((segment) => segment.id));
  const operationEnds = (state.operations ?? []).map((operation) => operation.end);
  for (const point of [
    state.end,
    ...recordPoints(state as Pick<LogRecord, "events">, state.end),
    ...operationEnds,
  ]) {
    await assertSegmentKnown(driver, listed, point.segment);
  }
  for (const segment of segments) {
    if (segment.base && !listed.has(segment.base.segment)) {
      const base = await assertSegmentKnown(driver, listed, segment.base.segment);
      if (base && base.start + segment.base.offset !== segment.start) {
        throw new InvalidThreadStateError(
          `segment ${quoteUntrusted(segment.id)} does not start where its base ends`,
          ["segments"],
        );
      }
    }
  }
  const parsed = segments.map(({ messages, ...info }) => ({
    info,
    messages: messages.map((message, index) => parseMessage(message, ["segments", index])),
  }));
  // The thread's owner, so a store with per-owner keys seals its segments with that owner's key.
  const owner = state.owner ?? catalogueOf(state.context).owner;
  const whose = owner === undefined ? {} : { owner };
  if (driver.importSegments) await driver.importSegments(parsed, whose);
  else for (const { info, messages } of parsed) await driver.importSegment(info, messages, 0, whose);
  const endInfo = segments.find((segment) => segment.id === state.end.segment);
  const known = endInfo ?? (await driver.segment(state.end.segment));
  if (!known)
    throw new InvalidThreadStateError(`segment ${quoteUntrusted(state.end.segment)} is missing`, ["end"]);
  const length = known.start + state.end.offset;
  const now = new Date().toISOString();
  const head = newHeadSegment(driver, id, state.end, length);
  const record: LogRecord = {
    kind: "log",
    id,
    type,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt ?? now,
    revision: state.revision,
    metadata: cloneJson(state.metadata),
    // The owner and title travel at the top of the JSON; the record keeps them in its context.
    context: withCatalogue(cloneJson(state.context), {
      ...catalogueOf(state.context),
      ...(state.owner === undefined ? {} : { owner: state.owner }),
      ...(state.title === undefined ? {} : { title: state.title }),
      ...(state.expiresAt === undefined ? {} : { expiresAt: new Date(state.expiresAt).toISOString() }),
    }),
    head: head.id,
    length,
    events: cloneJson(state.events) as HistoryEvent[],
    ...(state.operations?.length ? { operations: cloneJson(state.operations) } : {}),
  };
  await driver.createLog(record, head);
  return record;
}

async function assertSegmentKnown(driver: LogDriver, listed: Set<string>, id: string) {
  if (listed.has(id)) return undefined;
  const info = await driver.segment(id);
  if (!info)
    throw new InvalidThreadStateError(
      `segment ${quoteUntrusted(id)} is neither in the state nor in the store`,
      ["segments"],
    );
  return info;
}

/**
 * Checks that segments form chains (no cycles, consistent starts) and orders bases first. Iterative: a log
 * of many thousands of chained segments must not overflow the stack.
 */
function orderSegments(state: LogState): LogState["segments"] {
  type Segment = LogState["segments"][number];
  const byId = new Map(state.segments.map((segment) => [segment.id, segment]));
  if (byId.size !== state.segments.length)
    throw new InvalidThreadStateError("segment ids repeat", ["segments"]);
  const ordered: Segment[] = [];
  const placed = new Set<string>();
  for (const first of state.segments) {
    // Down the chain to the first segment already placed (or the root), then place that path bases first.
    const path: Segment[] = [];
    const onPath = new Set<string>();
    let segment: Segment | undefined = first;
    while (segment !== undefined && !placed.has(segment.id)) {
      if (onPath.has(segment.id)) throw new InvalidThreadStateError("segments form a cycle", ["segments"]);
      onPath.add(segment.id);
      path.push(segment);
      const base: Segment | undefined = segment.base ? byId.get(segment.base.segment) : undefined;
      assertContinues(segment, base);
      segment = base;
    }
    for (let index = path.length - 1; index >= 0; index--) {
      const next = path[index] as Segment;
      placed.add(next.id);
      ordered.push(next);
    }
  }
  const end = byId.get(state.end.segment);
  if (end && state.end.offset > end.messages.length) {
    throw new InvalidThreadStateError("the end lies past its segment's messages", ["end"]);
  }
  return ordered;
}

/** A segment starts where the part of its base it continues ends, and that part exists. */
function assertContinues(
  segment: LogState["segments"][number],
  base: LogState["segments"][number] | undefined,
): void {
  if (segment.base === null && segment.start !== 0) {
    throw new InvalidThreadStateError(
      `segment ${quoteUntrusted(segment.id)} has no base but starts at ${segment.start}`,
      ["segments"],
    );
  }
  if (!base || !segment.base) return;
  if (base.start + segment.base.offset !== segment.start) {
    throw new InvalidThreadStateError(
      `segment ${quoteUntrusted(segment.id)} does not start where its base ends`,
      ["segments"],
    );
  }
  if (segment.base.offset > base.messages.length) {
    throw new InvalidThreadStateError(
      `segment ${quoteUntrusted(segment.id)} continues past the end of its base`,
      ["segments"],
    );
  }
}
