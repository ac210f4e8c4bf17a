import type { Command } from "../cli/command.js";
import { jsonObjectOption, noMoreArguments, stringOption } from "../cli/option-values.js";

export const createCommand: Command = {
  name: "create",
  summary: "Create an empty thread of the store's own type, or of another registered type",
  usage: "create [--id ID] [--metadata JSON] [--owner O] [--title T] [--expires-at TIME] [--type TYPE]",
  description:
    "By default a local thread native to the store (fs for file:, redis for redis://, memory for memory:). --type creates a thread of another registered type through its adapter (workflow: a workflow with one local sub-thread, main) and saves its state here. Prints the new id.",
  options: {
    id: { type: "string", placeholder: "ID", description: "the thread's id (default: a new sortable id)" },
    metadata: {
      type: "string",
      placeholder: "JSON",
      description: "the application's metadata, a JSON object",
    },
    owner: { type: "string", placeholder: "O", description: "who the thread belongs to (a user id)" },
    title: { type: "string", placeholder: "T", description: "the thread's title" },
    "expires-at": {
      type: "string",
      placeholder: "TIME",
      description:
        "when the thread expires, an ISO time (2027-01-31T00:00:00Z); `skein sweep` deletes it after",
    },
    type: {
      type: "string",
      placeholder: "TYPE",
      description: "a registered thread type that can create threads (workflow)",
    },
  },
  examples: [
    `skein create --id support-42 --metadata '{"user":"u-7"}'`,
    'skein create --owner u-7 --title "Trip to Lyon"',
    "skein create --type workflow --id trip-7",
  ],
  async run(context) {
    noMoreArguments(context, 0);
    const id = stringOption(context, "id");
    const metadata = jsonObjectOption(context, "metadata");
    const type = stringOption(context, "type");
    const owner = stringOption(context, "owner");
    const title = stringOption(context, "title");
    const expiresAt = stringOption(context, "expires-at");
    const settings = {
      ...(id === undefined ? {} : { id }),
      ...(metadata ? { metadata } : {}),
      ...(owner === undefined ? {} : { owner }),
      ...(title === undefined ? {} : { title }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
    const store = await context.store({ create: true });
    const thread = type === undefined ? await store.create(settings) : await store.create(type, settings);
    if (context.json)
      return context.stdout.json({ id: thread.id, type: thread.type, revision: thread.revision });
    await context.stdout.line(`created ${thread.type} thread ${thread.id}`);
  },
};
