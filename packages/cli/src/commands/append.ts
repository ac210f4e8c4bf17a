import type { MessageInput, Role } from "@skein/thread-core";
import { ROLES } from "@skein/thread-core/driver";
import { UsageError } from "../cli/cli-error.js";
import type { Command, CommandContext } from "../cli/command.js";
import { integerOption, noMoreArguments, requiredArgument, stringOption } from "../cli/option-values.js";
import { plural } from "../format/plural.js";
import { parseJsonDocuments } from "../input/json-documents.js";
import { readStream } from "../input/read-input.js";
import { messageCount } from "../store/local-thread-access.js";

export const appendCommand: Command = {
  name: "append",
  summary: "Append a message (--text), or JSON messages from stdin",
  usage: `append <id> (--text TEXT [--role ROLE] | < messages.json) [--if-revision N]`,
  description:
    "Appends atomically. With --text, one text message (role user unless --role says otherwise). Without it, reads stdin: one JSON message, a JSON array of messages, or JSON Lines. A message re-sent with an id already in the thread is a no-op when equal and a conflict (exit 4) when it differs, so a retried append never duplicates.",
  options: {
    text: { type: "string", placeholder: "TEXT", description: "the message's text" },
    role: { type: "string", placeholder: "ROLE", description: `${ROLES.join(", ")} (default user)` },
    "if-revision": {
      type: "string",
      placeholder: "N",
      description: "append only if the thread is still at revision N (else exit 4)",
    },
  },
  examples: [
    `skein append support-42 --text "Is it warm in Lisbon today?"`,
    `echo '{"role":"assistant","contents":[{"type":"text","text":"Yes."}]}' | skein append support-42`,
  ],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    noMoreArguments(context, 1);
    const ifRevision = integerOption(context, "if-revision", 0);
    const inputs = await messageInputs(context);
    const thread = await (await context.store()).get(id);
    const stored = await thread.append(inputs, ifRevision === undefined ? {} : { ifRevision });
    if (context.json) return context.stdout.json(stored);
    const count = await messageCount(thread);
    await context.stdout.line(
      `appended ${plural(stored.length, "message")} to ${thread.id}: ${plural(count, "message")}${thread.revision === undefined ? "" : `, revision ${thread.revision}`}`,
    );
  },
};

async function messageInputs(context: CommandContext): Promise<MessageInput[]> {
  const text = stringOption(context, "text");
  const role = stringOption(context, "role");
  if (text !== undefined) {
    if (role !== undefined && !(ROLES as readonly string[]).includes(role)) {
      throw new UsageError(`--role must be one of ${ROLES.join(", ")}, not ${JSON.stringify(role)}`);
    }
    return [{ role: (role ?? "user") as Role, text }];
  }
  if (role !== undefined) throw new UsageError("--role goes with --text; JSON messages carry their own role");
  if (context.stdin.isTTY) throw new UsageError("give --text, or pipe JSON messages on stdin");
  const documents = parseJsonDocuments(await readStream(context.stdin), "stdin");
  return documents.flatMap((document) =>
    Array.isArray(document.value) ? document.value : [document.value],
  ) as MessageInput[];
}
