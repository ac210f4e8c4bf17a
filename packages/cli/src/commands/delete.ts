import { CliError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { EXIT_CODES } from "../cli/exit-codes.js";
import { requiredArgument } from "../cli/option-values.js";
import { plural } from "../format/plural.js";

export const deleteCommand: Command = {
  name: "delete",
  summary: "Delete threads by id",
  usage: "delete <id>… [--missing-ok]",
  description:
    "Deletes each thread's record. Forks of a deleted thread keep working: the history they share is kept while any thread reaches it. An id that is not in the store is exit 3 unless --missing-ok.",
  options: {
    "missing-ok": { type: "boolean", description: "an id that is not in the store is not an error" },
  },
  examples: ["skein delete support-42 support-43"],
  async run(context) {
    requiredArgument(context, 0, "id");
    const store = await context.store();
    const deleted: string[] = [];
    const missing: string[] = [];
    for (const id of context.positionals) ((await store.delete(id)) ? deleted : missing).push(id);
    if (context.json) await context.stdout.json({ deleted, missing });
    else if (deleted.length > 0)
      await context.stdout.line(`deleted ${plural(deleted.length, "thread")}: ${deleted.join(", ")}`);
    if (missing.length > 0 && context.values["missing-ok"] !== true) {
      throw new CliError(
        `no thread ${missing.map((id) => JSON.stringify(id)).join(", ")} in ${store.url}`,
        EXIT_CODES.notFound,
      );
    }
  },
};
