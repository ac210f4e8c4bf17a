import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { AdapterLoadError, InvalidConfigError } from "../cli/config-errors.js";

/** The file the CLI looks for in the working directory and each directory above it. */
export const CONFIG_FILE_NAME = "skein.config.json";

/** What `skein.config.json` holds: store packages to load and modules of your own types. */
export interface CliConfig {
  /** The config file, absolute; undefined when there is none. */
  file?: string;
  /** Package names, or module paths relative to the config file's directory. */
  adapters: string[];
  /** Modules that export thread and state types, as `--types` takes them, relative to the file's directory. */
  types: string[];
}

const KEYS = ["adapters", "types"] as const;

/**
 * The config the CLI runs with: the file `--config` (or `SKEIN_CONFIG`) names, which must exist, else the
 * nearest `skein.config.json` from `cwd` upward, else an empty config.
 * @example await readCliConfig(undefined, process.cwd()) // { file: "/app/skein.config.json", adapters: ["@acme/skein-sqlite"], types: [] }
 */
export function readCliConfig(given: string | undefined, cwd: string): CliConfig {
  const file = given !== undefined && given !== "" ? resolve(cwd, given) : findConfigFile(cwd);
  if (file === undefined) return { adapters: [], types: [] };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new InvalidConfigError(
      file,
      code === "ENOENT" ? "there is no such file" : `it cannot be read (${(error as Error).message})`,
      { cause: error },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidConfigError(file, `it is not JSON (${(error as Error).message})`, { cause: error });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new InvalidConfigError(file, 'expected an object such as { "adapters": ["@acme/skein-sqlite"] }');
  }
  const unknown = Object.keys(parsed).find((key) => !(KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    throw new InvalidConfigError(
      file,
      `unknown key ${JSON.stringify(unknown)}; it may hold ${KEYS.map((key) => `"${key}"`).join(" and ")}`,
    );
  }
  const record = parsed as Record<string, unknown>;
  return { file, adapters: stringList(file, record, "adapters"), types: stringList(file, record, "types") };
}

/**
 * Imports the config's store packages (each registers its URL schemes when it loads). A module path is
 * relative to the config file; a package name is looked up in the `node_modules` of the config file's
 * directory and those above it (the project's), then where the CLI itself is installed.
 */
export async function loadConfigAdapters(config: CliConfig): Promise<number> {
  const file = config.file as string;
  for (const specifier of config.adapters) {
    const local = specifier.startsWith(".") || isAbsolute(specifier);
    const target = local
      ? pathToFileURL(resolve(dirname(file), specifier)).href
      : (installedPackageEntry(specifier, dirname(file)) ?? specifier);
    try {
      await import(target);
    } catch (error) {
      throw new AdapterLoadError(specifier, file, local, { cause: error });
    }
  }
  return config.adapters.length;
}

/** The config's `types` as `loadTypeModules` takes them: a comma-separated list of absolute paths and names. */
export function configTypeList(config: CliConfig): string | undefined {
  if (config.types.length === 0) return undefined;
  const base = dirname(config.file as string);
  return config.types
    .map((specifier) =>
      specifier.startsWith(".") || isAbsolute(specifier) ? resolve(base, specifier) : specifier,
    )
    .join(",");
}

function findConfigFile(cwd: string): string | undefined {
  for (let directory = resolve(cwd); ; directory = dirname(directory)) {
    const candidate = join(directory, CONFIG_FILE_NAME);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    if (dirname(directory) === directory) return undefined;
  }
}

function stringList(file: string, record: Record<string, unknown>, key: string): string[] {
  const value = record[key];
  if (value === undefined) return [];
  if (
    !Array.isArray(value) ||
    value.some((item) => typeof item !== "string" || item.trim() === "" || item.includes(","))
  ) {
    throw new InvalidConfigError(
      file,
      `"${key}" must be an array of package names or module paths (non-empty strings without commas)`,
    );
  }
  return value.map((item: string) => item.trim());
}

/**
 * The entry file of package `name` installed in a `node_modules` at or above `directory`, as a file URL, or
 * undefined. Reads the root of its `exports` (the `import`, `node` or `default` condition) or its `main`.
 */
function installedPackageEntry(name: string, directory: string): string | undefined {
  for (let at = directory; ; at = dirname(at)) {
    const root = join(at, "node_modules", name);
    const manifestFile = join(root, "package.json");
    if (existsSync(manifestFile)) {
      let manifest: { exports?: unknown; main?: unknown };
      try {
        manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
      } catch {
        return undefined;
      }
      const entry =
        rootExport(manifest.exports) ?? (typeof manifest.main === "string" ? manifest.main : undefined);
      return pathToFileURL(join(root, entry ?? "index.js")).href;
    }
    if (dirname(at) === at) return undefined;
  }
}

function rootExport(exports: unknown): string | undefined {
  if (typeof exports === "string") return exports;
  if (typeof exports !== "object" || exports === null || Array.isArray(exports)) return undefined;
  const map = exports as Record<string, unknown>;
  if ("." in map) return rootExport(map["."]);
  for (const condition of ["import", "node", "default"]) {
    const found = rootExport(map[condition]);
    if (found !== undefined) return found;
  }
  return undefined;
}
