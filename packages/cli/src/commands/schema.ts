import { defaultRegistry } from "@skein/thread-core";
import { CliError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { EXIT_CODES } from "../cli/exit-codes.js";
import { noMoreArguments, stringOption } from "../cli/option-values.js";
import { registerStoreAdapters } from "../store/register-adapters.js";

export const schemaCommand: Command = {
  name: "schema",
  summary: "Print the JSON Schema of every registered thread type",
  usage: "schema [--type T]",
  description:
    "One JSON Schema (draft 2020-12) for a thread state of any registered type (memory, workflow, and the fs and redis types of the installed adapters), for readers in other languages. Always JSON.",
  options: {
    type: { type: "string", placeholder: "T", description: "only the schema of type T" },
  },
  examples: ["skein schema > skein-thread.schema.json", "skein schema --type fs"],
  async run(context) {
    noMoreArguments(context, 0);
    const registry = defaultRegistry();
    await registerStoreAdapters(registry);
    const schema = registry.jsonSchema();
    const type = stringOption(context, "type");
    if (type === undefined) return context.stdout.json(schema);
    const definitions = schema.$defs as Record<string, unknown>;
    const definition = definitions[type];
    if (definition === undefined) {
      throw new CliError(
        `no registered thread type ${JSON.stringify(type)}; registered: ${Object.keys(definitions).join(", ")}`,
        EXIT_CODES.notFound,
      );
    }
    await context.stdout.json({ $schema: schema.$schema, ...(definition as object) });
  },
};
