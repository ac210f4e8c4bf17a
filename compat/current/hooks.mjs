// Node module hook (loaded by register.mjs): the listed specifiers resolve as if imported from this folder.
// It changes only the parent URL: calling import.meta.resolve inside a hook broke vitest's start-up.
import { SPECIFIERS } from "./resolve.mjs";

const current = new Set(SPECIFIERS);
const here = new URL("./package.json", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, current.has(specifier) ? { ...context, parentURL: here } : context);
}
