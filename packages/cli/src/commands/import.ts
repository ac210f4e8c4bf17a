import type { Thread } from "@skein/thread-core";
import { CliError, UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { describeError } from "../cli/describe-error.js";
import { noMoreArguments, requiredArgument, stringOption } from "../cli/option-values.js";
import { plural } from "../format/plural.js";
import { parseJsonDocuments } from "../input/json-documents.js";
import { readInput } from "../input/read-input.js";
import { importMaf } from "./import-maf.js";

export const importCommand: Command = {
  name: "import",
  summary: "Bring exported threads into the store, as its own type",
  usage: "import <file|-> [--id NEW] [--from maf]",
  description:
    "Reads what `skein export` writes: JSON Lines, one JSON object, or a JSON array. A thread exported with its history (memory JSON) becomes a local thread of this store's type (fs, redis, memory) with its segments, checkpoints and revision kept, so forks imported separately share their history again. Other states are saved as they are. An id already in the store is a conflict (exit 4); invalid JSON is exit 5 with its line and column.",
  options: {
    id: { type: "string", placeholder: "NEW", description: "import the (single) thread under another id" },
    from: {
      type: "string",
      placeholder: "maf",
      description:
        "read another framework's format: `maf` (a Microsoft Agent Framework session, Python or .NET, or a Python history .jsonl)",
    },
  },
  examples: [
    "skein import backup.jsonl",
    "skein export support-42 | skein --store redis://localhost:6379 import - --id support-42-copy",
    "skein import --from maf sessions/sess_1.json",
  ],
  async run(context) {
    const path = requiredArgument(context, 0, "file|-");
    noMoreArguments(context, 1);
    const rename = stringOption(context, "id");
    const from = stringOption(context, "from");
    if (from !== undefined) {
      if (from !== "maf") throw new UsageError(`--from takes maf, not ${JSON.stringify(from)}`);
      const thread = await importMaf(context, path, rename);
      if (context.json) return context.stdout.json([thread]);
      return context.stdout.line(`imported 1 thread from MAF as ${thread.type}: ${thread.id}`);
    }
    const { text, source } = await readInput(path, context.stdin);
    const documents = parseJsonDocuments(text, source);
    if (rename !== undefined && documents.length !== 1) {
      throw new UsageError(`--id renames one thread, but ${source} holds ${documents.length}`);
    }
    const store = await context.store({ create: true });
    const imported: Thread[] = [];
    for (const document of documents) {
      try {
        imported.push(await store.import(document.value, rename === undefined ? {} : { id: rename }));
      } catch (error) {
        const { line, exitCode } = describeError(error);
        // At the line's end, which describeError keeps when it shortens a line: what landed is always said.
        const before =
          imported.length > 0 ? ` (${imported.length} of ${documents.length} imported before it)` : "";
        throw new CliError(`${document.where}: ${line}${before}`, exitCode, { cause: error });
      }
    }
    if (context.json)
      return context.stdout.json(imported.map((thread) => ({ id: thread.id, type: thread.type })));
    const shown = imported.slice(0, 10).map((thread) => thread.id);
    const more = imported.length > shown.length ? `, … (${imported.length - shown.length} more)` : "";
    await context.stdout.line(
      `imported ${plural(imported.length, "thread")} into ${store.url} as ${store.nativeType}: ${shown.join(", ")}${more}`,
    );
  },
};
