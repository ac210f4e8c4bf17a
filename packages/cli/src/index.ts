export { CliError, UsageError } from "./cli/cli-error.js";
export type { Command, CommandContext, OptionSpec } from "./cli/command.js";
export { EXIT_CODES, type ExitCode } from "./cli/exit-codes.js";
export { type CliIo, runCli } from "./cli/run-cli.js";
export { ALL_COMMANDS } from "./commands/all-commands.js";
export { type MigrateOptions, type MigrateReport, migrateThreads } from "./migrate/migrate-threads.js";
export { DEFAULT_STORE_URL } from "./store/open-cli-store.js";
