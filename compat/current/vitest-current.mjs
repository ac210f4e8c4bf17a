// Used by a bridge's vitest.config.ts when SKEIN_COMPAT=current: the listed packages resolve to this folder's
// copies, in the tests, in the bridge's src and in workspace dists (vitest inlines those, they are outside
// node_modules). Exact-match patterns: a plain "ai" alias would also rewrite "ai/test".
import { fileURLToPath } from "node:url";
import { resolveCurrent, SPECIFIERS } from "./resolve.mjs";

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** `resolve` options for vite: `{ alias: [{ find: /^ai$/, replacement: ".../compat/current/node_modules/ai/..." }] }`. */
export function currentResolve() {
  const alias = SPECIFIERS.map((specifier) => ({
    find: new RegExp(`^${escapeRegExp(specifier)}$`),
    replacement: fileURLToPath(resolveCurrent(specifier)),
  }));
  return { alias };
}
