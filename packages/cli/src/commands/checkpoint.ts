import type { Command } from "../cli/command.js";
import { noMoreArguments, requiredArgument } from "../cli/option-values.js";

export const checkpointCommand: Command = {
  name: "checkpoint",
  summary: "Mark the thread's current end with a checkpoint",
  usage: "checkpoint <id> [label]",
  description: "Prints the checkpoint's id: `rollback`, `fork --at` and `show --at` take it.",
  options: {},
  examples: [`skein checkpoint support-42 "answered"`],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    const label = context.positionals[1];
    noMoreArguments(context, 2);
    const thread = await (await context.store()).get(id);
    const checkpoint = await thread.checkpoint(label);
    if (context.json) return context.stdout.json(checkpoint);
    const named = checkpoint.label === undefined ? "" : ` "${checkpoint.label}"`;
    await context.stdout.line(
      `checkpoint ${checkpoint.id}${named} at message ${checkpoint.point.position} of ${thread.id}`,
    );
  },
};
