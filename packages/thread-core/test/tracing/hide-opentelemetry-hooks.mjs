// Module resolution hooks that make every `@opentelemetry/*` package unresolvable, as in an install
// without it, and write each attempt to the file named by SKEIN_RESOLVE_LOG.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  if (specifier.startsWith("@opentelemetry/")) {
    if (process.env.SKEIN_RESOLVE_LOG) appendFileSync(process.env.SKEIN_RESOLVE_LOG, `${specifier}\n`);
    const error = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
