import {
  InvalidListOptionsError,
  MAX_LIST_LIMIT,
  type ThreadStore,
  type ThreadSummary,
} from "@skein/thread-core";
import { UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { integerOption, noMoreArguments, stringOption } from "../cli/option-values.js";
import { plural } from "../format/plural.js";
import { formatTable } from "../format/table.js";
import { formatTime } from "../format/transcript.js";
import { visibleText } from "../format/visible-text.js";

const DEFAULT_LIMIT = 50;

export const lsCommand: Command = {
  name: "ls",
  summary: "List threads, one page at a time",
  usage: "ls [--prefix P] [--type T] [--limit N] [--cursor C]",
  description:
    "Lists thread ids in ascending order with their type and last change. When more threads remain, the last line gives the --cursor for the next page (with --json: the `cursor` field; absent on the last page).",
  options: {
    prefix: { type: "string", placeholder: "P", description: "only ids that start with P" },
    type: {
      type: "string",
      placeholder: "T",
      description: "only threads of type T (fs, redis, memory, workflow, …)",
    },
    limit: { type: "string", placeholder: "N", description: `at most N threads (default ${DEFAULT_LIMIT})` },
    cursor: {
      type: "string",
      placeholder: "C",
      description: "continue after the page that gave this cursor",
    },
  },
  examples: [
    "skein ls --prefix support- --limit 20",
    "skein ls --json --cursor \"$NEXT\" | jq -r '.items[].id'",
  ],
  async run(context) {
    noMoreArguments(context, 0);
    const page = await listPage(await context.store(), {
      prefix: stringOption(context, "prefix"),
      type: stringOption(context, "type"),
      cursor: stringOption(context, "cursor"),
      limit: integerOption(context, "limit", 1) ?? DEFAULT_LIMIT,
    });
    if (context.json) return context.stdout.json(page);
    if (page.items.length === 0) return context.stdout.line("no threads");
    // Cells are rendered before the table measures them, so an escaped character keeps the columns aligned.
    const rows = page.items.map((item) =>
      [item.id, item.type, formatTime(item.updatedAt)].map((cell) => visibleText(cell)),
    );
    for (const line of formatTable([["ID", "TYPE", "UPDATED"], ...rows])) await context.stdout.line(line);
    const count = plural(page.items.length, "thread");
    await context.stdout.line(page.cursor ? `${count}; next page: --cursor ${page.cursor}` : count);
  },
};

/**
 * A page of up to `limit` threads of one type. The type is filtered here, so each store page is asked
 * for no more than the threads still missing: the page then ends exactly where a store cursor does.
 */
async function listPage(
  store: ThreadStore,
  options: { prefix?: string; type?: string; cursor?: string; limit: number },
): Promise<{ items: ThreadSummary[]; cursor?: string }> {
  const items: ThreadSummary[] = [];
  let cursor = options.cursor;
  do {
    const page = await store
      // A store pages at most MAX_LIST_LIMIT threads at a time; a larger --limit takes several pages.
      .list({ prefix: options.prefix, cursor, limit: Math.min(options.limit - items.length, MAX_LIST_LIMIT) })
      .catch((error: unknown) => {
        // The store's word for a cursor it did not make.
        if (InvalidListOptionsError.isInstance(error) && error.option === "cursor")
          throw new UsageError(`--cursor ${cursor} is not one that skein ls gave`);
        throw error;
      });
    items.push(...page.items.filter((item) => options.type === undefined || item.type === options.type));
    cursor = page.cursor;
  } while (cursor !== undefined && items.length < options.limit);
  return cursor === undefined ? { items } : { items, cursor };
}
