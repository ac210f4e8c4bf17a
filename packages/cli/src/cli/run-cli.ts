import { readFileSync } from "node:fs";
import type { ThreadStore } from "@skein/thread-core";
import { ALL_COMMANDS } from "../commands/all-commands.js";
import { configTypeList, loadConfigAdapters, readCliConfig } from "../store/cli-config.js";
import { readEncryptionKeys } from "../store/encryption-keys.js";
import { loadAdapterModules } from "../store/load-adapters.js";
import { loadTypeModules } from "../store/load-types.js";
import { type CliStoreOptions, openCliStore, storeUrlFrom } from "../store/open-cli-store.js";
import { InvalidArgumentError, UsageError } from "./cli-error.js";
import type { Command, CommandContext, OptionValues } from "./command.js";
import { describeError, urlSecrets } from "./describe-error.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { commandHelp, globalHelp } from "./help.js";
import { Output } from "./output.js";
import { GLOBAL_OPTIONS, parseCommandArguments, splitCommand } from "./parse-command-line.js";

/** The process streams and environment a run uses; tests and embedders may pass their own. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  environment: NodeJS.ProcessEnv;
}

/**
 * Runs one `skein` command line and resolves to its exit code. Never throws: a failure is one line on
 * stderr, `skein: <what went wrong>`.
 * @example process.exitCode = await runCli(process.argv.slice(2));
 */
export async function runCli(args: string[], io: CliIo = processIo()): Promise<ExitCode> {
  const stdout = new Output(io.stdout);
  const stderr = new Output(io.stderr);
  const opened: Array<() => Promise<void>> = [];
  // Checked here, not assumed: `runCli("ls")` from JavaScript is a one-line error, never a TypeError.
  const argv = isArgv(args) ? args : undefined;
  const secrets = urlSecrets([
    io.environment.SKEIN_STORE,
    ...(argv ?? []).flatMap((arg) => [arg, arg.slice(arg.indexOf("=") + 1)]),
  ]);
  try {
    if (argv === undefined) {
      throw new InvalidArgumentError(
        "runCli's command line",
        'an array of strings, such as runCli(["ls", "--limit", "5"])',
        args,
      );
    }
    const invocation = resolveInvocation(argv);
    if (invocation.kind === "text") {
      await stdout.lines(invocation.text);
      return invocation.exitCode;
    }
    const { command, positionals, values } = invocation;
    if (values.help === true) {
      await stdout.lines(commandHelp(command));
      return EXIT_CODES.ok;
    }
    const config = readCliConfig(
      typeof values.config === "string" ? values.config : io.environment.SKEIN_CONFIG,
      process.cwd(),
    );
    await loadConfigAdapters(config);
    await loadAdapterModules(
      typeof values.adapter === "string" ? values.adapter : io.environment.SKEIN_ADAPTERS,
      process.cwd(),
    );
    await loadTypeModules(configTypeList(config), process.cwd());
    await loadTypeModules(
      typeof values.types === "string" ? values.types : io.environment.SKEIN_TYPES,
      process.cwd(),
    );
    const tenant = typeof values.scope === "string" ? values.scope : undefined;
    const encryption = readEncryptionKeys(
      typeof values["keys-file"] === "string" ? values["keys-file"] : undefined,
      io.environment,
    );
    const open = async (url: string, scope = tenant, options: CliStoreOptions = {}): Promise<ThreadStore> => {
      const { store, close } = await openCliStore(url, scope, {
        ...(encryption ? { encryption } : {}),
        ...options,
      });
      opened.push(close);
      return store;
    };
    let main: Promise<ThreadStore> | undefined;
    const context: CommandContext = {
      positionals,
      values,
      json: values.json === true,
      stdout,
      stderr,
      stdin: io.stdin,
      environment: io.environment,
      store: (options) => {
        main ??= open(
          storeUrlFrom(typeof values.store === "string" ? values.store : undefined, io.environment),
          tenant,
          options,
        );
        return main;
      },
      openStore: open,
    };
    await command.run(context);
    return EXIT_CODES.ok;
  } catch (error) {
    const { line, exitCode } = describeError(error, secrets);
    await stderr.line(`skein: ${line}${usageHint(error, argv ?? [])}`);
    return exitCode;
  } finally {
    for (const close of opened.reverse()) await close().catch(() => {});
  }
}

function isArgv(args: unknown): args is string[] {
  return Array.isArray(args) && args.every((arg) => typeof arg === "string");
}

type Invocation =
  | { kind: "text"; text: string; exitCode: ExitCode }
  | { kind: "command"; command: Command; positionals: string[]; values: OptionValues };

function resolveInvocation(args: string[]): Invocation {
  const { name, rest } = splitCommand(args);
  if (name === undefined || name === "help") {
    const { positionals, values } = parseCommandArguments(
      rest,
      { ...GLOBAL_OPTIONS, version: { type: "boolean", description: "" } },
      "",
    );
    if (values.version === true) return { kind: "text", text: version(), exitCode: EXIT_CODES.ok };
    if (positionals[0] !== undefined) {
      const topic = findCommand(positionals[0]);
      if (!topic)
        throw new UsageError(`unknown command ${JSON.stringify(positionals[0])} (see skein --help)`);
      return { kind: "text", text: commandHelp(topic), exitCode: EXIT_CODES.ok };
    }
    const asked = values.help === true || name === "help";
    return {
      kind: "text",
      text: globalHelp(ALL_COMMANDS, version()),
      exitCode: asked ? EXIT_CODES.ok : EXIT_CODES.usage,
    };
  }
  const command = findCommand(name);
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)} (see skein --help)`);
  const { positionals, values } = parseCommandArguments(
    rest,
    { ...GLOBAL_OPTIONS, ...command.options },
    command.name,
  );
  return { kind: "command", command, positionals, values };
}

/** A usage error inside a command points at that command's help, unless it already points somewhere. */
function usageHint(error: unknown, args: string[]): string {
  if (!UsageError.isInstance(error) || error.message.includes("--help")) return "";
  const { name } = splitCommand(args);
  return name && findCommand(name) ? ` (see skein ${name} --help)` : "";
}

function findCommand(name: string): Command | undefined {
  return ALL_COMMANDS.find((command) => command.name === name);
}

/** The package's version, read beside the built files (dist/ sits next to package.json). */
function version(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    return String(manifest.version);
  } catch {
    return "unknown";
  }
}

function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, environment: process.env };
}
