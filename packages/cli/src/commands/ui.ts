import type { ThreadStore } from "@skein/thread-core";
import { CliError, UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { EXIT_CODES } from "../cli/exit-codes.js";
import { booleanOption, integerOption, noMoreArguments } from "../cli/option-values.js";

/** The part of @skein/ui this command uses; the package is loaded only when `skein ui` runs. */
interface UiPackage {
  startUi(options: { store: ThreadStore; port?: number; write?: boolean }): Promise<{
    url: string;
    port: number;
    close(): Promise<void>;
  }>;
}

const UI_PACKAGE = "@skein/ui";

export const uiCommand: Command = {
  name: "ui",
  summary: "Open the store in a browser: threads, history graph, time travel, context views",
  usage: "ui [--port N] [--write]",
  description: [
    "Serves a local web page over the store on 127.0.0.1 and prints its address, which holds a random access token: every request without it is refused. Stop it with Ctrl-C.",
    "Read-only unless --write: then the page offers fork, checkpoint, rollback, title edits and 'make current' for a message version, each refused if the thread moved on since the page read it.",
    "Needs the @skein/ui package (npm install @skein/ui).",
  ].join("\n\n"),
  options: {
    port: { type: "string", placeholder: "N", description: "the port on 127.0.0.1 (default: a free one)" },
    write: { type: "boolean", description: "offer fork, checkpoint, rollback, title edits and make current" },
  },
  examples: ["skein ui", "skein ui --store redis://localhost:6379 --port 4000 --write"],
  async run(context) {
    noMoreArguments(context, 0);
    const port = integerOption(context, "port", 0);
    if (port !== undefined && port > 65_535)
      throw new UsageError(`--port must be at most 65535, not ${port}`);
    const ui = await loadUiPackage();
    const store = await context.store();
    const server = await ui.startUi({
      store,
      write: booleanOption(context, "write"),
      ...(port === undefined ? {} : { port }),
    });
    if (context.json) await context.stdout.json({ url: server.url, port: server.port });
    else {
      await context.stdout.line(`skein ui on ${server.url}`);
      await context.stdout.line("open that address in a browser; Ctrl-C stops the server");
    }
    // The store stays open while the page is served: the command ends when the process is told to stop.
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await server.close();
  },
};

async function loadUiPackage(): Promise<UiPackage> {
  try {
    // A variable, not a literal: the CLI does not bundle or type-depend on the browser package.
    const specifier = UI_PACKAGE;
    return (await import(specifier)) as UiPackage;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && String(error).includes(UI_PACKAGE)) {
      throw new CliError(
        `skein ui needs the ${UI_PACKAGE} package: npm install ${UI_PACKAGE}`,
        EXIT_CODES.failure,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}
