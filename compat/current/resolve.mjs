// The packages the second test pass takes from this folder instead of the repository's node_modules, and how
// to resolve them here (ESM conditions: ai 7 has no `require` export).
export const SPECIFIERS = [
  "ai",
  "ai/test",
  "openai",
  "@openai/agents-core",
  "@openai/agents-openai",
  "@azure/ai-projects",
  "@azure/identity",
  "@azure/ai-agents",
];

/** The file URL a bare specifier resolves to from this folder, e.g. `resolveCurrent("ai")`. */
export const resolveCurrent = (specifier) => import.meta.resolve(specifier);
