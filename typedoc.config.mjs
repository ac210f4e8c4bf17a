// `npm run docs`: the API reference of every published package's entry points (docs/api, git-ignored), read from
// the built .d.ts the API reports are made from, so the reference shows exactly the public surface. It fails on an
// exported name without a doc comment, the rule package-checks' api-reports test enforces on every `npm test`.
import { apiEntries } from "./scripts/api-report.mjs";

const packages = [...new Set(apiEntries().map((entry) => entry.packagePath))];

/** Options each package and the merged reference both need. */
function shared() {
  return {
    // The packages' READMEs are the guides; this is the reference.
    readme: "none",
    excludeExternals: true,
    excludePrivate: true,
    // Sources are the built .d.ts, so links to them would help no one.
    disableSources: true,
    // A public type may use an internal one (a class's private collaborator); the report shows it by name.
    validation: { notExported: false, invalidLink: true, notDocumented: true },
    // Top-level exports need their one-line "what and why"; members are described by their types and the READMEs.
    // Functions are checked by scripts/typedoc-functions-documented.mjs: TypeDoc's "Function" also covers methods.
    requiredToBeDocumented: ["Class", "Variable", "Interface", "TypeAlias", "Enum", "Namespace"],
  };
}

/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  name: "skein",
  entryPointStrategy: "packages",
  entryPoints: packages,
  // Each package documents its root entry; a package with more entries lists them in its own typedoc.json.
  packageOptions: {
    entryPoints: ["dist/index.d.ts"],
    tsconfig: "../../tsconfig.typedoc.json",
    ...shared(),
  },
  out: "docs/api",
  plugin: ["./scripts/typedoc-functions-documented.mjs"],
  ...shared(),
  treatWarningsAsErrors: true,
  logLevel: "Warn",
};
