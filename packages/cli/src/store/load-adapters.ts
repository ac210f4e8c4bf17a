import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError } from "../cli/cli-error.js";

/**
 * Imports the store packages named by `--adapter` or `SKEIN_ADAPTERS` (comma-separated package names or
 * module paths). A store package registers its URL schemes when it loads (`defineLogStore` or
 * `registerStoreAdapter`), so after this every command opens its URLs like the built-in ones.
 * @example await loadAdapterModules("@acme/skein-sqlite", process.cwd())
 */
export async function loadAdapterModules(list: string | undefined, cwd: string): Promise<number> {
  const specifiers = (list ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  for (const specifier of specifiers) {
    const local = specifier.startsWith(".") || isAbsolute(specifier);
    try {
      await import(local ? pathToFileURL(resolve(cwd, specifier)).href : specifier);
    } catch (error) {
      throw new UsageError(
        `--adapter ${JSON.stringify(specifier)} could not be loaded (${(error as Error).message}); install the package (npm install ${local ? "…" : specifier}) or give a module path`,
      );
    }
  }
  return specifiers.length;
}
