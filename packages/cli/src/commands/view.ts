import { estimateTokens } from "@skein/thread-core";
import { UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { booleanOption, integerOption, noMoreArguments, requiredArgument } from "../cli/option-values.js";
import { transcriptEntry } from "../format/transcript.js";
import { messageCount } from "../store/local-thread-access.js";

export const viewCommand: Command = {
  name: "view",
  summary: "The newest messages that fit a token budget, as a model would get them",
  usage: "view <id> --max-tokens N [--max-messages N] [--no-system]",
  description:
    "Tool calls stay whole (a result is never kept without its call) and system messages stay unless --no-system. Tokens are estimated at about four characters each.",
  options: {
    "max-tokens": { type: "string", placeholder: "N", description: "the token budget" },
    "max-messages": { type: "string", placeholder: "N", description: "at most N messages" },
    "no-system": { type: "boolean", description: "let system messages go like any other" },
  },
  examples: ["skein view support-42 --max-tokens 4000", "skein view support-42 --max-messages 10 --json"],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    noMoreArguments(context, 1);
    const maxTokens = integerOption(context, "max-tokens", 0);
    const maxMessages = integerOption(context, "max-messages", 0);
    if (maxTokens === undefined && maxMessages === undefined) {
      throw new UsageError("view needs --max-tokens N or --max-messages N");
    }
    const thread = await (await context.store()).get(id);
    const view = await thread.view({
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(maxMessages === undefined ? {} : { maxMessages }),
      ...(booleanOption(context, "no-system") ? { keepSystem: false } : {}),
    });
    const tokens = view.reduce((sum, message) => sum + estimateTokens(message), 0);
    if (context.json) return context.stdout.json({ id: thread.id, tokens, messages: view });
    const total = await messageCount(thread);
    const budget = [
      maxTokens === undefined ? "" : `${maxTokens} tokens`,
      maxMessages === undefined ? "" : `${maxMessages} messages`,
    ]
      .filter(Boolean)
      .join(", ");
    await context.stdout.line(
      `view of ${thread.id}: ${view.length} of ${total} messages, ~${tokens} tokens (budget ${budget})`,
    );
    const width = String(view.length).length;
    for (const [index, message] of view.entries())
      await context.stdout.lines(transcriptEntry(message, index + 1, width));
  },
};
