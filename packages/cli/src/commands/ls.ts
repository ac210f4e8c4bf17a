import {
  InvalidListOptionsError,
  type ListOptions,
  MAX_LIST_LIMIT,
  type ThreadStore,
  type ThreadSummary,
} from "@skein/thread-core";
import { UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { integerOption, noMoreArguments, stringOption } from "../cli/option-values.js";
import { whereOption } from "../cli/where-option.js";
import { plural } from "../format/plural.js";
import { formatTable } from "../format/table.js";
import { formatTime } from "../format/transcript.js";
import { visibleText } from "../format/visible-text.js";

const DEFAULT_LIMIT = 50;

export const lsCommand: Command = {
  name: "ls",
  summary: "List threads, one page at a time",
  usage:
    "ls [--owner O] [--order id|updated|created] [--asc|--desc] [--where K=V]… [--prefix P] [--type T] [--limit N] [--cursor C]",
  description:
    "Lists threads with their type, owner, title and last change: by id (the default, ascending), or with --order updated or created, newest first (--asc for oldest first). --owner keeps one owner's threads, --where keeps threads whose metadata key K equals V (V read as JSON when it is JSON, else as text; repeat for more keys). When more threads remain, the last line gives the --cursor for the next page, to be given with the same options (with --json: the `cursor` field; absent on the last page).",
  options: {
    owner: { type: "string", placeholder: "O", description: "only threads of owner O" },
    order: {
      type: "string",
      placeholder: "ORDER",
      description: "id (default), updated (last change) or created",
    },
    asc: { type: "boolean", description: "oldest (or lowest id) first" },
    desc: { type: "boolean", description: "newest (or highest id) first" },
    where: {
      type: "string",
      placeholder: "K=V",
      multiple: true,
      description: "only threads whose metadata key K equals V (repeatable)",
    },
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
    "skein ls --owner u-7 --order updated --limit 20",
    "skein ls --owner u-7 --where agent=planner --where archived=false --json",
    "skein ls --prefix support- --limit 20",
    "skein ls --json --cursor \"$NEXT\" | jq -r '.items[].id'",
  ],
  async run(context) {
    noMoreArguments(context, 0);
    const page = await listPage(await context.store(), {
      ...catalogueOptions(context),
      prefix: stringOption(context, "prefix"),
      type: stringOption(context, "type"),
      cursor: stringOption(context, "cursor"),
      limit: integerOption(context, "limit", 1) ?? DEFAULT_LIMIT,
    });
    if (context.json) return context.stdout.json(page);
    if (page.items.length === 0) return context.stdout.line("no threads");
    // Cells are rendered before the table measures them, so an escaped character keeps the columns aligned.
    // Owner and title columns only when a thread on the page has one: stores without owners list as before.
    const catalogued = page.items.some((item) => item.owner !== undefined || item.title !== undefined);
    const rows = page.items.map((item) =>
      [
        item.id,
        item.type,
        ...(catalogued ? [item.owner ?? "-", item.title ?? "-"] : []),
        formatTime(item.updatedAt),
      ].map((cell) => visibleText(cell)),
    );
    const header = ["ID", "TYPE", ...(catalogued ? ["OWNER", "TITLE"] : []), "UPDATED"];
    for (const line of formatTable([header, ...rows])) await context.stdout.line(line);
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
  options: ListOptions & { type?: string; limit: number },
): Promise<{ items: ThreadSummary[]; cursor?: string }> {
  const items: ThreadSummary[] = [];
  let cursor = options.cursor;
  do {
    const page = await store
      // A store pages at most MAX_LIST_LIMIT threads at a time; a larger --limit takes several pages.
      .list({
        prefix: options.prefix,
        owner: options.owner,
        where: options.where,
        order: options.order,
        direction: options.direction,
        cursor,
        limit: Math.min(options.limit - items.length, MAX_LIST_LIMIT),
      })
      .catch((error: unknown) => {
        // The store's word for a cursor it did not make, or one of another listing.
        if (InvalidListOptionsError.isInstance(error) && error.option === "cursor")
          throw new UsageError(`--cursor ${cursor} is not one that skein ls gave with these options`);
        if (InvalidListOptionsError.isInstance(error))
          throw new UsageError(`--${error.option}: ${error.detail}`);
        throw error;
      });
    items.push(...page.items.filter((item) => options.type === undefined || item.type === options.type));
    cursor = page.cursor;
  } while (cursor !== undefined && items.length < options.limit);
  return cursor === undefined ? { items } : { items, cursor };
}

/** `--owner`, `--order`, `--asc`/`--desc` and `--where` as `list` options; a usage error for a bad one. */
function catalogueOptions(context: Parameters<Command["run"]>[0]): ListOptions {
  const order = stringOption(context, "order");
  if (order !== undefined && order !== "id" && order !== "updated" && order !== "created") {
    throw new UsageError(`--order takes id, updated or created, not ${JSON.stringify(order)}`);
  }
  const asc = context.values.asc === true;
  const desc = context.values.desc === true;
  if (asc && desc) throw new UsageError("give --asc or --desc, not both");
  const owner = stringOption(context, "owner");
  const where = whereOption(context);
  return {
    ...(owner === undefined ? {} : { owner }),
    ...(where === undefined ? {} : { where }),
    ...(order === undefined ? {} : { order }),
    ...(asc ? { direction: "asc" as const } : desc ? { direction: "desc" as const } : {}),
  };
}
