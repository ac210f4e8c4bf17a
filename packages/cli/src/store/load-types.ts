import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { defaultRegistry, type ThreadType } from "@skein/thread-core";
import { CliError, UsageError } from "../cli/cli-error.js";
import { EXIT_CODES } from "../cli/exit-codes.js";

/** Node's codes for a specifier that names no module it can load: the command line's mistake. */
const NOT_A_MODULE = new Set([
  "ERR_MODULE_NOT_FOUND",
  "ERR_PACKAGE_PATH_NOT_EXPORTED",
  "ERR_UNSUPPORTED_DIR_IMPORT",
  "ERR_UNKNOWN_FILE_EXTENSION",
  "ERR_INVALID_MODULE_SPECIFIER",
  "ERR_UNSUPPORTED_ESM_URL_SCHEME",
]);

/** A registered type as a module exports it: `defineThreadType(…)` or `defineStateType(…)`. */
function isType(value: unknown): value is ThreadType {
  const candidate = value as Partial<ThreadType> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.type === "string" &&
    typeof candidate.version === "number" &&
    typeof candidate.schema === "object" &&
    (candidate.kind === "thread" || candidate.kind === "state")
  );
}

/**
 * Loads the modules named by `--types` or `SKEIN_TYPES` (comma-separated paths or package names) and
 * registers every type they export, so the CLI reads, migrates and shows an application's own types.
 * @example await loadTypeModules("./acme-types.mjs", process.cwd())
 */
export async function loadTypeModules(list: string | undefined, cwd: string): Promise<number> {
  const specifiers = (list ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  let count = 0;
  for (const specifier of specifiers) {
    const local = specifier.startsWith(".") || isAbsolute(specifier);
    const target = local ? pathToFileURL(resolve(cwd, specifier)).href : specifier;
    let module: Record<string, unknown>;
    try {
      module = (await import(target)) as Record<string, unknown>;
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      if (typeof code === "string" && NOT_A_MODULE.has(code)) {
        throw new UsageError(
          `--types ${JSON.stringify(specifier)} could not be loaded (${(error as Error).message}); give a module path (./types.mjs) or an installed package`,
        );
      }
      // The module was found and its own code failed: that is its failure, not the command line's.
      throw new CliError(
        `--types ${JSON.stringify(specifier)} failed while loading: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
        EXIT_CODES.failure,
        { cause: error },
      );
    }
    const exported = Object.values(module).flatMap((value) => (Array.isArray(value) ? value : [value]));
    const types = exported.filter(isType);
    if (types.length === 0) {
      throw new UsageError(
        `--types ${JSON.stringify(specifier)} exports no thread or state types; export what defineThreadType and defineStateType return`,
      );
    }
    // State types first: a thread type's nested states name them.
    for (const type of types.sort((a, b) => (a.kind === "state" ? -1 : 0) - (b.kind === "state" ? -1 : 0))) {
      defaultRegistry().ensure(type);
    }
    count += types.length;
  }
  return count;
}
