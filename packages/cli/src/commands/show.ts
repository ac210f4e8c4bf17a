import {
  LogThread,
  type Message,
  type Thread,
  type ThreadStore,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { UsageError } from "../cli/cli-error.js";
import type { Command, CommandContext } from "../cli/command.js";
import { integerOption, noMoreArguments, requiredArgument, stringOption } from "../cli/option-values.js";
import { plural } from "../format/plural.js";
import { formatTime, transcriptEntry } from "../format/transcript.js";
import { messageCount } from "../store/local-thread-access.js";

const PAGE_SIZE = 500;

export const showCommand: Command = {
  name: "show",
  summary: "Print a thread as a readable transcript",
  usage: "show <id> [--last N] [--at CHECKPOINT|MESSAGE] [--json]",
  description:
    "Prints the thread's type, revision and metadata, then its messages in order: position, role, message id, contents. Long threads are read a page at a time. --at shows the thread as it was at a checkpoint or just after a message (time travel; history is not changed).",
  options: {
    last: { type: "string", placeholder: "N", description: "only the last N messages" },
    at: {
      type: "string",
      placeholder: "POINT",
      description: "the thread at a checkpoint id, or just after a message id",
    },
  },
  examples: [
    "skein show support-42",
    "skein show support-42 --last 5",
    "skein show support-42 --at cp_x1y2 --json",
  ],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    noMoreArguments(context, 1);
    const last = integerOption(context, "last", 0);
    const at = stringOption(context, "at");
    const store = await context.store();
    const thread = await store.get(id).catch((error: unknown) => {
      // A plain state type has no thread to bind: show its state instead.
      if (UnsupportedOperationError.isInstance(error)) return undefined;
      throw error;
    });
    if (!thread) return showState(context, store, id, last !== undefined || at !== undefined);
    const read = await reader(thread, at);
    const total = read.length;
    const first = last === undefined ? 0 : Math.max(0, total - last);
    if (context.json) {
      const messages: Message[] = [];
      for await (const page of read.pages(first)) messages.push(...page);
      return context.stdout.json({ ...summary(thread), length: total, ...(at ? { at } : {}), messages });
    }
    await context.stdout.line(header(thread, total, at));
    if (Object.keys(thread.metadata).length > 0)
      await context.stdout.line(`metadata ${JSON.stringify(thread.metadata)}`);
    const fields = (thread as { fields?: Record<string, unknown> }).fields;
    if (fields && Object.keys(fields).length > 0)
      await context.stdout.line(`fields ${JSON.stringify(fields)}`);
    let position = first;
    const width = String(total).length;
    for await (const page of read.pages(first)) {
      for (const message of page) await context.stdout.lines(transcriptEntry(message, ++position, width));
    }
  },
};

/** A state of a type without behaviour (no messages): its type and its JSON, parsed and migrated. */
async function showState(context: CommandContext, store: ThreadStore, id: string, readsMessages: boolean) {
  if (readsMessages) {
    throw new UsageError(
      `${JSON.stringify(id)} is a plain state with no messages; --last and --at do not apply`,
    );
  }
  const state = await store.getState(id, { unknown: "preserve" });
  const json = JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
  if (context.json) return context.stdout.json({ id, type: json.$type, state: json });
  await context.stdout.line(`state ${id} (${String(json.$type)}) · version ${String(json.$v ?? 1)}`);
  await context.stdout.lines(JSON.stringify(json, null, 2));
}

interface Reader {
  length: number;
  /** Pages of messages from position `from` (0-based) to the end. */
  pages(from: number): AsyncGenerator<Message[]>;
}

/**
 * Reads the thread (or its past, `at`). A whole local thread is read a page at a time from one view of
 * its log, so a thread of any length prints in constant memory; the last N messages take one read.
 */
async function reader(thread: Thread, at: string | undefined): Promise<Reader> {
  if (at !== undefined) {
    const snapshot = await thread.at(at);
    return { length: snapshot.point.position, pages: (from) => onePage(snapshot.messages(), from) };
  }
  const local = LogThread.isInstance(thread) ? thread : undefined;
  const length = await messageCount(thread);
  return {
    length,
    pages: (from) =>
      from > 0
        ? onePage(thread.messages({ last: length - from }), 0)
        : local
          ? local.iterate(PAGE_SIZE)
          : onePage(thread.messages(), 0),
  };
}

async function* onePage(messages: Promise<Message[]>, from: number): AsyncGenerator<Message[]> {
  yield (await messages).slice(from);
}

function summary(thread: Thread) {
  return {
    id: thread.id,
    type: thread.type,
    revision: thread.revision,
    metadata: thread.metadata,
    state: thread.toJSON(),
  };
}

function header(thread: Thread, total: number, at: string | undefined): string {
  const state = thread.toJSON() as { createdAt?: string };
  const parts = [
    `thread ${thread.id} (${thread.type})`,
    `${plural(total, "message")}${at ? ` at ${at}` : ""}`,
    ...(thread.revision === undefined ? [] : [`revision ${thread.revision}`]),
    ...(state.createdAt ? [`created ${formatTime(state.createdAt)}`] : []),
  ];
  return parts.join(" · ");
}
