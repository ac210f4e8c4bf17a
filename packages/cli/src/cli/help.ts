import { formatTable } from "../format/table.js";
import type { Command, OptionSpec } from "./command.js";
import { EXIT_CODE_HELP } from "./exit-codes.js";
import { GLOBAL_OPTIONS } from "./parse-command-line.js";

/** `skein --help`: every command, the global flags, the environment and the exit codes. */
export function globalHelp(commands: readonly Command[], version: string): string {
  return [
    `skein ${version}: inspect, export, import and migrate skein threads in any store`,
    "",
    "Usage: skein <command> [arguments] [--store URL] [--scope TENANT] [--json]",
    "",
    "Commands:",
    ...indent(formatTable(commands.map((command) => [command.name, command.summary]))),
    "",
    "Global flags:",
    ...indent(
      optionRows({ ...GLOBAL_OPTIONS, version: { type: "boolean", description: "print the version" } }),
    ),
    "",
    "Environment:",
    ...indent(
      formatTable([["SKEIN_STORE", "the store URL when --store is not given (default file:./.skein)"]]),
    ),
    "",
    "Exit codes:",
    ...indent(formatTable(EXIT_CODE_HELP.map(([code, text]) => [String(code), text]))),
    "",
    "Output is for people; --json gives JSON on stdout for scripts. Errors are one line on stderr.",
    "Control characters in output for people print as JSON escapes (ESC as \\u001b); --json and export are exact.",
    "Run `skein <command> --help` for a command's flags and examples.",
  ].join("\n");
}

/** `skein <command> --help`. */
export function commandHelp(command: Command): string {
  const sections = [`Usage: skein ${command.usage}`, "", command.summary];
  if (command.description) sections.push("", command.description);
  if (Object.keys(command.options).length > 0)
    sections.push("", "Flags:", ...indent(optionRows(command.options)));
  sections.push("", "Global flags:", ...indent(optionRows(GLOBAL_OPTIONS)));
  if (command.examples?.length) sections.push("", "Examples:", ...indent(command.examples));
  sections.push("", "Exit codes: see skein --help.");
  return sections.join("\n");
}

function optionRows(options: Record<string, OptionSpec>): string[] {
  return formatTable(
    Object.entries(options).map(([name, spec]) => [
      `${spec.short ? `-${spec.short}, ` : ""}--${name}${spec.type === "string" ? ` ${spec.placeholder ?? "VALUE"}` : ""}`,
      spec.description,
    ]),
  );
}

function indent(lines: string[]): string[] {
  return lines.map((line) => `  ${line}`);
}
