/** One entry point of a published package and where its report lives. */
export interface ApiEntry {
  packageName: string;
  packagePath: string;
  /** The `exports` key: `.`, `./driver`, … */
  subpath: string;
  /** What a user imports: `@skein/thread-core/driver`. */
  importPath: string;
  declarationFile: string;
  reportFile: string;
}

/** An entry's report as the build gives it. */
export interface ApiReport extends ApiEntry {
  /** Every exported name, sorted. */
  names: string[];
  text: string;
  /** Exported names declared in this package that carry no doc comment. */
  undocumented: string[];
  /** Exported names declared in another package, and that package. */
  reexported: { name: string; from: string }[];
}

export interface ApiDifference {
  report: Pick<ApiEntry, "reportFile" | "importPath">;
  summary: string;
}

export const repositoryRoot: string;
export const UPDATE_COMMAND: string;
export function apiEntries(root?: string): ApiEntry[];
export function buildApiReports(root?: string): ApiReport[];
export function compareApiReports(reports: ApiReport[]): ApiDifference[];
export function differenceMessage(differences: ApiDifference[]): string;
export function writeApiReports(reports: ApiReport[]): void;
