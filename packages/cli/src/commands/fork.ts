import type { Command } from "../cli/command.js";
import { jsonObjectOption, noMoreArguments, requiredArgument, stringOption } from "../cli/option-values.js";
import { plural } from "../format/plural.js";
import { messageCount } from "../store/local-thread-access.js";

export const forkCommand: Command = {
  name: "fork",
  summary: "Fork a thread: a new thread sharing its history up to a point",
  usage: "fork <id> [--at MESSAGE|CHECKPOINT] [--id NEW] [--metadata JSON]",
  description:
    "The fork shares the parent's messages up to the point (O(1) for local threads: nothing is copied) and grows on its own. --at takes a checkpoint id or a message id (the fork ends with that message); the default is the end of the thread.",
  options: {
    at: {
      type: "string",
      placeholder: "POINT",
      description: "a checkpoint id, or a message id the fork ends with",
    },
    id: { type: "string", placeholder: "NEW", description: "the fork's id (default: a new sortable id)" },
    metadata: {
      type: "string",
      placeholder: "JSON",
      description: "merged over a copy of the parent's metadata",
    },
  },
  examples: ["skein fork support-42 --at cp_x1y2 --id support-42-retry"],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    noMoreArguments(context, 1);
    const at = stringOption(context, "at");
    const forkId = stringOption(context, "id");
    const metadata = jsonObjectOption(context, "metadata");
    const parent = await (await context.store()).get(id);
    const fork = await parent.fork({
      ...(at === undefined ? {} : { at }),
      ...(forkId === undefined ? {} : { id: forkId }),
      ...(metadata ? { metadata } : {}),
    });
    const length = await messageCount(fork);
    if (context.json)
      return context.stdout.json({ id: fork.id, type: fork.type, parentId: parent.id, length });
    await context.stdout.line(
      `forked ${parent.id} into ${fork.id} (${fork.type}) at message ${length}${at ? ` (${at})` : ""}: shares ${plural(length, "message")}`,
    );
  },
};
