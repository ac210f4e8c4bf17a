import type { Command } from "../cli/command.js";
import { noMoreArguments, requiredArgument } from "../cli/option-values.js";
import { plural } from "../format/plural.js";
import { formatTable } from "../format/table.js";
import { visibleText } from "../format/visible-text.js";
import { branchingThread } from "../store/branching-thread.js";

export const alternativesCommand: Command = {
  name: "alternatives",
  summary: "List the versions of a message (edits, regenerations) and their branches",
  usage: "alternatives <id> <message>",
  description:
    "The versions at the message's position in the order they were made: the original first, then each edit or regeneration. `*` marks the one on the current branch; `messages` is the length of the branch behind each. The message may be on the current branch or one of its versions. `skein switch` makes another current.",
  options: {},
  examples: ["skein alternatives support-42 01JD8X3Q4V6Y9Z0B1C2D3E4F5G"],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    const messageId = requiredArgument(context, 1, "message");
    noMoreArguments(context, 2);
    const thread = branchingThread(await (await context.store()).get(id), "alternatives");
    const versions = await thread.alternatives(messageId);
    if (context.json) return context.stdout.json(versions);
    const rows = versions.map((version) => [
      version.current ? "*" : " ",
      `${version.index + 1}/${versions.length}`,
      version.id,
      plural(version.length, "message"),
      `${version.role}: ${visibleText(version.preview).replace(/\s+/g, " ")}`,
    ]);
    for (const line of formatTable(rows)) await context.stdout.line(line);
  },
};
