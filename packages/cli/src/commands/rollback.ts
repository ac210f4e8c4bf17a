import type { Command } from "../cli/command.js";
import { integerOption, noMoreArguments, requiredArgument } from "../cli/option-values.js";
import { plural } from "../format/plural.js";
import { messageCount } from "../store/local-thread-access.js";

export const rollbackCommand: Command = {
  name: "rollback",
  summary: "Make a checkpoint (or a message) the thread's end again",
  usage: "rollback <id> <checkpoint|message> [--if-revision N]",
  description:
    "The thread continues from the checkpoint, or from just after the message. Nothing is destroyed: the abandoned messages stay reachable through `skein log` and earlier checkpoints.",
  options: {
    "if-revision": {
      type: "string",
      placeholder: "N",
      description: "roll back only if the thread is still at revision N (else exit 4)",
    },
  },
  examples: ["skein rollback support-42 cp_x1y2", "skein rollback support-42 01JD8X3Q4V6Y9Z0B1C2D3E4F5G"],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    const target = requiredArgument(context, 1, "checkpoint|message");
    noMoreArguments(context, 2);
    const ifRevision = integerOption(context, "if-revision", 0);
    const thread = await (await context.store()).get(id);
    const before = await messageCount(thread);
    await thread.rollback(target, ifRevision === undefined ? {} : { ifRevision });
    await thread.refresh();
    const after = await messageCount(thread);
    if (context.json)
      return context.stdout.json({ id: thread.id, target, before, length: after, revision: thread.revision });
    await context.stdout.line(
      `rolled ${thread.id} back to ${target}: ${plural(after, "message")} (was ${before}); the abandoned part stays in \`skein log ${thread.id}\``,
    );
  },
};
