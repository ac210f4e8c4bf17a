/** The bench's sections, as `--only` names them. */
export const SECTIONS = [
  "speed",
  "scaling",
  "storage",
  "langgraph",
  "redis-concurrency",
  "runtime",
  "catalogue",
  "branching",
  "retention",
  "streaming",
  "erasure",
  "encryption",
] as const;
export type Section = (typeof SECTIONS)[number];

/** What merging needs of bench-results.json (report.ts's `Figures`, which imports this file's names). */
interface MergeableFigures {
  date: string;
  remeasured?: Record<string, string>;
}

/** Where each section keeps its figures in bench-results.json. */
const FIELDS: Record<Section, string> = {
  speed: "results",
  scaling: "scaling",
  storage: "storage",
  langgraph: "langgraph",
  "redis-concurrency": "redisConcurrency",
  runtime: "runtime",
  catalogue: "catalogue",
  branching: "branching",
  retention: "retention",
  streaming: "streaming",
  erasure: "erasure",
  encryption: "encryption",
};

/**
 * The sections `--only catalogue,branching` (or `--only=catalogue`) names, or every section without it. An
 * unknown name is an error that lists the known ones, so a typo never runs nothing quietly.
 */
export function chosenSections(argv: readonly string[]): ReadonlySet<Section> {
  const at = argv.findIndex((argument) => argument === "--only" || argument.startsWith("--only="));
  if (at === -1) return new Set(SECTIONS);
  const argument = argv[at] as string;
  const list = argument === "--only" ? argv[at + 1] : argument.slice("--only=".length);
  const names = (list ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `--only takes sections separated by commas, of: ${SECTIONS.join(", ")}${unknown.length ? ` (not ${unknown.join(", ")})` : ""}`,
    );
  }
  return new Set(names as Section[]);
}

/**
 * The figures to write after a run of `sections`: a full run's own; a run of some sections, the earlier
 * figures with those sections replaced and the date of each noted in `remeasured` (the catalogue and
 * branching rows carry their own date, machine and command).
 */
export function mergedFigures<Figures extends MergeableFigures>(
  earlier: Figures | undefined,
  fresh: Figures,
  sections: ReadonlySet<Section>,
  command: string,
): Figures {
  if (sections.size === SECTIONS.length || !earlier) return fresh;
  const merged: Figures = { ...earlier, remeasured: { ...earlier.remeasured } };
  for (const section of sections) {
    const field = FIELDS[section];
    (merged as unknown as Record<string, unknown>)[field] = (fresh as unknown as Record<string, unknown>)[
      field
    ];
    if (
      section !== "catalogue" &&
      section !== "branching" &&
      section !== "retention" &&
      section !== "streaming" &&
      section !== "encryption"
    ) {
      (merged.remeasured as Record<string, string>)[section] = `${fresh.date} (${command})`;
    }
  }
  return merged;
}
