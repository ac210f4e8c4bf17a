import type { ThreadStore } from "@skein/thread-core";
import type { CliStoreOptions } from "../store/open-cli-store.js";
import type { Output } from "./output.js";

/** A flag a command accepts, as `node:util` parseArgs reads it, plus what `--help` says about it. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** The value's placeholder in help, `N` in `--limit N`. */
  placeholder?: string;
  description: string;
}

export type OptionValues = Record<string, string | boolean | string[] | boolean[] | undefined>;

/** What a command gets to work with: its arguments, the output streams and the store. */
export interface CommandContext {
  positionals: string[];
  values: OptionValues;
  /** `--json`: machine-readable output on stdout. */
  json: boolean;
  stdout: Output;
  stderr: Output;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  environment: NodeJS.ProcessEnv;
  /**
   * The store `--store`/`SKEIN_STORE` names, scoped by `--scope`; opened on first call, closed after the
   * command. It must exist unless `create` (the commands that make threads from nothing: create, import, demo).
   */
  store(options?: CliStoreOptions): Promise<ThreadStore>;
  /**
   * Opens another store (migrate's ends) in `tenant`'s scope (default: `--scope`), closed after the command;
   * it must exist unless `create`.
   */
  openStore(url: string, tenant?: string, options?: CliStoreOptions): Promise<ThreadStore>;
}

/** One `skein` command: its name, help text, options and what it runs. */
export interface Command {
  name: string;
  /** One line for `skein --help`. */
  summary: string;
  /** The synopsis after `skein `, e.g. `ls [--prefix P] [--limit N]`. */
  usage: string;
  /** Paragraphs for `skein <command> --help`. */
  description?: string;
  options: Record<string, OptionSpec>;
  examples?: string[];
  run(context: CommandContext): Promise<void>;
}
