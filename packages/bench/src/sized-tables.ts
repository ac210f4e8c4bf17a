import type { BranchingSizes } from "./branching-scenario.js";
import type { CatalogueSize, SizedRow } from "./catalogue-scenario.js";
import { formatMicros } from "./measure.js";

/** When, where and how a section was measured: the catalogue and branching rows can be re-run alone. */
export interface MeasuredAt {
  date: string;
  machine: string;
  node: string;
  command: string;
}

/** Issue 37's figures: list and append at each store size, the ordering rows and the fills' times. */
export interface CatalogueFigures {
  measured: MeasuredAt;
  sizes: readonly CatalogueSize[];
  rows: SizedRow[];
  ordering: SizedRow[];
  fills: Array<{ store: string; threads: number; seconds: number }>;
}

/** Issue 38's figures: edit, regenerate, switchTo and alternatives on the three threads. */
export interface BranchingFigures {
  measured: MeasuredAt;
  sizes: BranchingSizes;
  rows: SizedRow[];
}

type Table = [string[], string[][]];
type Target = [string, number | undefined, number];

const count = (value: number) => value.toLocaleString("en-US");
const times = (value: number) => `${value.toFixed(2)}×`;

/** The row's figure in `column` over the one in `base`. */
function ratio(row: SizedRow, column: number, base = 0): number | undefined {
  const first = row.micros[base];
  const other = row.micros[column];
  return first && other !== undefined ? other / first : undefined;
}

/**
 * The catalogue table. Two ratios: the sizes (the smallest store can hold only a 10-thread page),
 * and the largest store beside the one just large enough for the owner's 1,000 threads (the same page).
 */
export function catalogueTable(figures: CatalogueFigures): Table {
  const last = figures.sizes.length - 1;
  const first = figures.sizes[0] as CatalogueSize;
  const samePage = last - 1;
  const largest = figures.sizes[last] as CatalogueSize;
  const middle = figures.sizes[samePage] as CatalogueSize;
  return [
    [
      "store",
      "operation",
      ...figures.sizes.map((size) => `${count(size.threads)} threads (owner: ${count(size.owned)})`),
      `ratio ${count(largest.threads)} / ${count(first.threads)}`,
      `ratio ${count(largest.threads)} / ${count(middle.threads)}`,
      "note",
    ],
    figures.rows.map((row) => [
      row.store,
      row.operation,
      ...row.micros.map(formatMicros),
      times(ratio(row, last) ?? Number.NaN),
      times(ratio(row, last, samePage) ?? Number.NaN),
      row.note ?? "",
    ]),
  ];
}

export function orderingTable(figures: CatalogueFigures): Table {
  return [
    ["store", "append, a thread with no owner", "append, one of the owner's threads", "ratio"],
    figures.ordering.map((row) => [
      row.store,
      ...row.micros.map(formatMicros),
      times(ratio(row, 1) ?? Number.NaN),
    ]),
  ];
}

export function fillTable(figures: CatalogueFigures): Table {
  return [
    ["store", "threads", "seconds", "creates/s"],
    figures.fills.map((fill) => [
      fill.store,
      count(fill.threads),
      fill.seconds.toFixed(1),
      (fill.threads / fill.seconds).toFixed(0),
    ]),
  ];
}

export function branchingTable(figures: BranchingFigures): Table {
  const { small, large, edits } = figures.sizes;
  return [
    [
      "store",
      "operation",
      `${count(small)} msgs`,
      `${count(large)} msgs`,
      `${count(edits)} edits at one position`,
      `ratio ${count(large)} / ${count(small)}`,
      `ratio ${count(edits)} edits / ${count(small)} msgs`,
      "note",
    ],
    figures.rows.map((row) => [
      row.store,
      row.operation,
      ...row.micros.map(formatMicros),
      times(ratio(row, 1) ?? Number.NaN),
      times(ratio(row, 2) ?? Number.NaN),
      row.note ?? "",
    ]),
  ];
}

/**
 * The issues' targets for these rows. `alternatives` at the position with the edits lists every version
 * there, so it is O(versions) by issue 38's own terms: its ratio is printed, not held to 1.3.
 */
export function sizedTargets(catalogue?: CatalogueFigures, branching?: BranchingFigures): Target[] {
  const targets: Target[] = [];
  if (catalogue) {
    // Held on the same page: the largest store beside the one that just holds the owner's threads. The
    // 10-thread store's page is half as long, so its ratio is printed, not held to 1.3.
    const last = catalogue.sizes.length - 1;
    const largest = count((catalogue.sizes[last] as CatalogueSize).threads);
    const middle = count((catalogue.sizes[last - 1] as CatalogueSize).threads);
    for (const row of catalogue.rows) {
      const scan = row.note?.startsWith("scan") ? " (scan: before the index)" : "";
      targets.push([
        `${row.store} ${row.operation}${scan}: ${largest} / ${middle} threads ≤ 1.3`,
        ratio(row, last, last - 1),
        1.3,
      ]);
    }
    for (const row of catalogue.ordering) {
      targets.push([
        `${row.store} append keeping the owner's order ≤ 1.1× one without (a thread with no owner)`,
        ratio(row, 1),
        1.1,
      ]);
    }
  }
  if (branching) {
    const { small, large, edits } = branching.sizes;
    for (const row of branching.rows) {
      targets.push([
        `${row.store} ${row.operation}: ${count(large)} / ${count(small)} messages ≤ 1.3`,
        ratio(row, 1),
        1.3,
      ]);
      if (row.operation === "alternatives") continue;
      targets.push([
        `${row.store} ${row.operation}: ${count(edits)} edits at one position / ${count(small)} messages ≤ 1.3`,
        ratio(row, 2),
        1.3,
      ]);
    }
  }
  return targets;
}
