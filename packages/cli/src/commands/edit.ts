import type { Role } from "@skein/thread-core";
import { ROLES } from "@skein/thread-core/driver";
import { UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { integerOption, noMoreArguments, requiredArgument, stringOption } from "../cli/option-values.js";
import { branchingThread } from "../store/branching-thread.js";

export const editCommand: Command = {
  name: "edit",
  summary: "Replace a message with a new version; the old one stays a branch",
  usage: "edit <id> <message> --text TEXT [--role ROLE] [--new-id ID] [--if-revision N]",
  description:
    "The thread continues from before the message with the new text in its place, in one atomic change; the old version and everything after it stay a branch (`skein alternatives`, `skein switch`, `skein log`). The role is the old message's unless --role says otherwise. --new-id names the new version, which makes a retry a no-op.",
  options: {
    text: { type: "string", placeholder: "TEXT", description: "the new version's text" },
    role: {
      type: "string",
      placeholder: "ROLE",
      description: `${ROLES.join(", ")} (default: the message's)`,
    },
    "new-id": {
      type: "string",
      placeholder: "ID",
      description: "the new version's id (default: a new sortable id)",
    },
    "if-revision": {
      type: "string",
      placeholder: "N",
      description: "edit only if the thread is still at revision N (else exit 4)",
    },
  },
  examples: [`skein edit support-42 01JD8X3Q4V6Y9Z0B1C2D3E4F5G --text "And in Porto?"`],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    const messageId = requiredArgument(context, 1, "message");
    noMoreArguments(context, 2);
    const text = stringOption(context, "text");
    if (text === undefined) throw new UsageError("give the new version's text with --text");
    const role = stringOption(context, "role");
    if (role !== undefined && !(ROLES as readonly string[]).includes(role)) {
      throw new UsageError(`--role must be one of ${ROLES.join(", ")}, not ${JSON.stringify(role)}`);
    }
    const newId = stringOption(context, "new-id");
    const ifRevision = integerOption(context, "if-revision", 0);
    const thread = branchingThread(await (await context.store()).get(id), "edit");
    // The old version's role by default: an edited question stays a question. Found among the versions too.
    const versions = await thread.alternatives(messageId);
    const old = versions.find((version) => version.id === messageId);
    const stored = await thread.edit(
      messageId,
      { role: (role ?? old?.role ?? "user") as Role, text, ...(newId === undefined ? {} : { id: newId }) },
      ifRevision === undefined ? {} : { ifRevision },
    );
    const count = (await thread.alternatives(stored.id)).length;
    if (context.json) {
      return context.stdout.json({
        id: thread.id,
        replaced: messageId,
        message: stored,
        versions: count,
        revision: thread.revision,
      });
    }
    await context.stdout.line(
      `edited ${thread.id}: ${messageId} replaced by ${stored.id}, version ${count} of ${count}; the old branch stays (\`skein alternatives ${thread.id} ${stored.id}\`)`,
    );
  },
};
