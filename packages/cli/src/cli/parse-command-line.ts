import { parseArgs } from "node:util";
import { CONFIG_FILE_NAME } from "../store/cli-config.js";
import { UsageError } from "./cli-error.js";
import type { OptionSpec, OptionValues } from "./command.js";

/** Flags every command takes. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  store: {
    type: "string",
    placeholder: "URL",
    description:
      "memory:, file:<path>, redis://…, rediss://…, postgres://…, or a scheme --adapter loads (default: $SKEIN_STORE, else file:./.skein)",
  },
  scope: {
    type: "string",
    placeholder: "TENANT",
    description: "work inside one tenant's scope of the store",
  },
  adapter: {
    type: "string",
    placeholder: "PACKAGES",
    description:
      "store packages to load for their URL schemes, comma-separated package names or module paths (default: $SKEIN_ADAPTERS)",
  },
  types: {
    type: "string",
    placeholder: "MODULES",
    description:
      "modules that export your own thread and state types, comma-separated (default: $SKEIN_TYPES)",
  },
  config: {
    type: "string",
    placeholder: "FILE",
    description: `a config file of "adapters" and "types" to load (default: $SKEIN_CONFIG, else the nearest ${CONFIG_FILE_NAME} from here up)`,
  },
  "keys-file": {
    type: "string",
    placeholder: "FILE",
    description:
      'keys of an encrypted store, a JSON file {"current": ID, "keys": {ID: base64 32 bytes}}, with "owners": DIR for per-owner keys (default: $SKEIN_KEYS_FILE, else the JSON in $SKEIN_KEYS); never on the command line',
  },
  json: { type: "boolean", description: "machine-readable JSON on stdout" },
  help: { type: "boolean", short: "h", description: "show help" },
};

/** The first word that is not a flag or a global flag's value: the command. The rest are its arguments. */
export function splitCommand(args: string[]): { name?: string; rest: string[] } {
  const { tokens } = parseArgs({
    args,
    options: toParseArgsOptions(GLOBAL_OPTIONS),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const first = tokens.find((token) => token.kind === "positional");
  if (!first) return { rest: args };
  return { name: first.value, rest: args.filter((_, index) => index !== first.index) };
}

/** Parses a command's arguments strictly: an unknown flag or a missing value is a usage error. */
export function parseCommandArguments(
  args: string[],
  options: Record<string, OptionSpec>,
  commandName: string,
): { positionals: string[]; values: OptionValues } {
  try {
    const { positionals, values } = parseArgs({
      args,
      options: toParseArgsOptions(options),
      strict: true,
      allowPositionals: true,
    });
    return { positionals, values: values as OptionValues };
  } catch (error) {
    throw new UsageError(
      `${describeParseError(error as Error & { code?: string })} (see skein ${commandName} --help)`,
    );
  }
}

function toParseArgsOptions(options: Record<string, OptionSpec>) {
  return Object.fromEntries(
    Object.entries(options).map(([name, spec]) => [
      name,
      {
        type: spec.type,
        ...(spec.short ? { short: spec.short } : {}),
        ...(spec.multiple ? { multiple: true } : {}),
      },
    ]),
  );
}

/** node:util's messages run over several sentences; the CLI prints one short line. */
function describeParseError(error: Error & { code?: string }): string {
  const flag = /'(-[^' ]+)/.exec(error.message)?.[1] ?? "";
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown flag ${flag}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return error.message.includes("does not take an argument")
        ? `${flag} takes no value`
        : `${flag} needs a value`;
    default:
      return error.message.split(". ")[0] ?? error.message;
  }
}
