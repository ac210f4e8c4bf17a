import type { HistoryEvent, Message } from "@skein/thread-core";
import type { LogChange, LogRecord, SegmentInfo } from "@skein/thread-core/driver";
import { catalogueOf } from "@skein/thread-core/driver";
import { encodeKey, entryArguments } from "./catalogue-members.js";
import { eventTemplate } from "./record-codec.js";
import { toSortableText } from "./sortable-text.js";

/** A message as the scripts take it: id field, JSON, and whether it is a system message. */
export function messageArguments(message: Message): string[] {
  return [toSortableText(message.id), JSON.stringify(message), message.role === "system" ? "1" : "0"];
}

/**
 * The commit script's ARGV for a change whose messages are `append` (see scripts/commit.ts for the
 * order), with the time it stamps as `now`. A plain append leaves out the rest of the change. `catalogue`
 * (a single server, where the script keeps the catalogue too) adds the record's id for it.
 */
export function commitArguments(
  change: LogChange,
  append: Message[],
  now: string,
  ttlSeconds: number,
  catalogue?: { id: string },
): string[] {
  const { newHead, event, known } = change;
  const args = [
    change.ifRevision === undefined ? "" : String(change.ifRevision),
    toSortableText(change.expectHead),
    now,
    String(ttlSeconds),
    known && known.head === change.expectHead ? String(known.revision) : "",
    String(append.length),
  ];
  let flags = "";
  for (const message of append) {
    args.push(toSortableText(message.id), JSON.stringify(message));
    flags += message.role === "system" ? "1" : "0";
  }
  args.push(flags, change.end ?? "");
  if (catalogue) {
    // A changed context may change the owner and the own expiry; otherwise the catalogue keeps its own.
    const fields = change.context ? catalogueOf(change.context) : undefined;
    const given = (value: string | undefined) => (!fields ? "" : value === undefined ? "-" : `=${value}`);
    args.push(
      toSortableText(catalogue.id),
      given(fields?.owner),
      given(fields?.expiresAt === undefined ? undefined : encodeKey(fields.expiresAt)),
    );
  }
  if (!newHead && !event && !change.metadata && !change.context && !change.operations) return args;
  const template = eventTemplate(event);
  // The point the script fills: the end after the append (a checkpoint) or before the new head (a rollback).
  const pointSegment = event?.kind === "checkpoint" ? (newHead?.id ?? change.expectHead) : change.expectHead;
  args.push(
    newHead ? toSortableText(newHead.id) : "",
    JSON.stringify(newHead?.base ?? null),
    String(newHead?.start ?? 0),
    newHead?.createdAt ?? "",
    change.metadata ? JSON.stringify(change.metadata) : "",
    change.context ? JSON.stringify(change.context) : "",
    template.kind,
    template.open,
    template.close,
    JSON.stringify(pointSegment),
    change.operations ? JSON.stringify(change.operations) : "",
  );
  return args;
}

/** The create-log script's ARGV (see scripts/create-log.ts for the order). */
export function createLogArguments(record: LogRecord, head: SegmentInfo, ttlSeconds: number): string[] {
  return [
    JSON.stringify(record.id),
    toSortableText(record.type),
    record.createdAt,
    record.updatedAt,
    String(record.revision),
    JSON.stringify(record.metadata),
    JSON.stringify(record.context),
    toSortableText(record.head),
    String(record.length),
    JSON.stringify(head.base),
    String(head.start),
    head.createdAt,
    String(ttlSeconds),
    record.operations ? JSON.stringify(record.operations) : "",
    toSortableText(record.id),
    ...entryArguments(record).slice(1),
    record.end ?? "",
    ...record.events.map((event) => JSON.stringify(event)),
  ];
}

/** The import-segment script's ARGV (see scripts/import-segment.ts for the order). */
export function importArguments(
  info: SegmentInfo,
  messages: Message[],
  from: number,
  ttlSeconds: number,
  compared: boolean,
): string[] {
  return [
    JSON.stringify(info.base),
    String(info.start),
    info.createdAt,
    String(from),
    String(ttlSeconds),
    compared ? "1" : "",
    ...messages.flatMap(messageArguments),
  ];
}

/** Segments in other slots that a change makes the thread point at: referenced before the commit. */
export function referencesTaken(change: LogChange): string[] {
  const taken = change.newHead?.base ? [change.newHead.base.segment] : [];
  if (change.event) taken.push(...eventReferencesOutsideScript(change.event));
  return taken;
}

/** The script itself counts the points it fills (checkpoint point, rollback `from`); the rest are counted here. */
function eventReferencesOutsideScript(event: HistoryEvent): string[] {
  switch (event.kind) {
    case "checkpoint":
      return [];
    case "rollback":
      return [event.to.segment];
    case "fork":
      return [event.from.segment];
  }
}
