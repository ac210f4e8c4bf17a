import { type HistoryEvent, SkeinError } from "@skein/thread-core";
import type { LogChange, LogRecord, SegmentInfo, StoredRecord } from "@skein/thread-core/driver";
import { cloneJson } from "@skein/thread-core/driver";
import { fromSortableText } from "./sortable-text.js";

/** A flat `HGETALL` reply as an object. */
export function hashFields(flat: unknown): Record<string, string> {
  const fields: Record<string, string> = Object.create(null);
  const list = flat as string[];
  for (let index = 0; index + 1 < list.length; index += 2)
    fields[list[index] as string] = list[index + 1] as string;
  return fields;
}

/** The record stored under `id`, from its hash fields and its events. */
export function decodeRecord(id: string, fields: Record<string, string>, events: string[]): StoredRecord {
  if (fields.id === undefined || JSON.parse(fields.id) !== id) {
    throw new SkeinError(`The record under ${JSON.stringify(id)} names another id: the store is damaged.`, {
      source: "adapter-redis",
    });
  }
  if (fields.kind === "state") {
    return {
      kind: "state",
      id,
      revision: Number(fields.revision),
      updatedAt: fields.updatedAt as string,
      state: JSON.parse(fields.state as string),
    };
  }
  return {
    kind: "log",
    id,
    type: fromSortableText(fields.type as string),
    createdAt: fields.createdAt as string,
    updatedAt: fields.updatedAt as string,
    revision: Number(fields.revision),
    metadata: JSON.parse(fields.metadata as string),
    context: JSON.parse(fields.context as string),
    head: fromSortableText(fields.head as string),
    length: Number(fields.length),
    events: events.map((event) => JSON.parse(event) as HistoryEvent),
    ...(fields.operations === undefined ? {} : { operations: JSON.parse(fields.operations) }),
    ...(fields.end === undefined ? {} : { end: fields.end }),
  } satisfies LogRecord;
}

/**
 * The record after a commit, from the script's reply (see scripts/commit.ts): read back whole when the
 * record had moved past the caller's known one, else the known record with the change applied, so a
 * commit reads no metadata, context or events back.
 */
export function committedRecord(id: string, change: LogChange, reply: unknown[], now: string): LogRecord {
  const [, revision, length, event, , fields, events] = reply;
  if (fields !== undefined || !change.known) {
    return decodeRecord(id, hashFields(fields), events as string[]) as LogRecord;
  }
  const known = change.known;
  if (Number(revision) === known.revision) return known;
  return {
    kind: "log",
    id: known.id,
    type: known.type,
    createdAt: known.createdAt,
    updatedAt: now,
    revision: Number(revision),
    metadata: change.metadata ? cloneJson(change.metadata) : known.metadata,
    context: change.context ? cloneJson(change.context) : known.context,
    head: change.newHead?.id ?? known.head,
    length: Number(length),
    events: typeof event === "string" ? [...known.events, JSON.parse(event) as HistoryEvent] : known.events,
    ...(change.operations
      ? { operations: cloneJson(change.operations) }
      : known.operations
        ? { operations: known.operations }
        : {}),
    ...(change.end !== undefined ? { end: change.end } : known.end !== undefined ? { end: known.end } : {}),
  };
}

/** A segment's info from `HMGET base start createdAt`, or undefined when it is gone. */
export function decodeSegmentInfo(id: string, reply: unknown): SegmentInfo | undefined {
  const [base, start, createdAt] = reply as Array<string | null>;
  if (start === null || start === undefined) return undefined;
  return { id, base: JSON.parse(base as string), start: Number(start), createdAt: createdAt as string };
}

/**
 * An event as JSON text around the parts the commit script fills in: the point (the end of the log at
 * commit time) and the revision. The script writes `open + point + close + revision + "}"`.
 */
export interface EventTemplate {
  /** `checkpoint` and `rollback` get a point; `other` events none; "" is no event. */
  kind: "" | "checkpoint" | "rollback" | "other";
  open: string;
  close: string;
}

export function eventTemplate(event: HistoryEvent | undefined): EventTemplate {
  if (event === undefined) return { kind: "", open: "", close: "" };
  if (event.kind === "checkpoint") {
    const { checkpoint, revision: _revision, ...outer } = event;
    const { point: _point, ...inner } = checkpoint;
    const rest = JSON.stringify(inner).slice(1, -1);
    return {
      kind: "checkpoint",
      open: `${openObject(outer)},"checkpoint":{"point":`,
      close: `${rest ? `,${rest}` : ""}},"revision":`,
    };
  }
  if (event.kind === "rollback") {
    const { from: _from, revision: _revision, ...outer } = event;
    return { kind: "rollback", open: `${openObject(outer)},"from":`, close: ',"revision":' };
  }
  const { revision: _revision, ...outer } = event;
  return { kind: "other", open: openObject(outer), close: ',"revision":' };
}

/** An object's JSON without its closing brace, for fields to follow. */
function openObject(value: object): string {
  return JSON.stringify(value).slice(0, -1);
}
