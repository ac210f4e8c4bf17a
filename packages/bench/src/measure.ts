/** Timing helpers: medians of repeated runs, since these machines are noisy and one run means little. */

/**
 * Medians of several operations measured in turns: `blocks` rounds, each running every operation
 * `runs / blocks` times (the order alternating from round to round), after `warmup` untimed runs each. Drift
 * in the machine's speed (another process, the disk's flush) then falls on every operation alike, so their
 * ratios mean something even where single runs are noisy.
 */
export async function measureInTurns(
  operations: Array<() => Promise<unknown>>,
  runs = 200,
  warmup = 20,
  blocks = 10,
): Promise<number[]> {
  return measureTimedInTurns(
    operations.map((operation) => (timed) => timed(operation)),
    runs,
    warmup,
    blocks,
  );
}

/** What an operation of `measureTimedInTurns` wraps around the part of it that is timed. */
export type Timed = <Value>(work: () => Promise<Value>) => Promise<Value>;

/**
 * `measureInTurns` for operations that prepare each run untimed (append the message an edit will replace,
 * say): each calls `timed` once around what is measured, and only that counts.
 */
export async function measureTimedInTurns(
  operations: Array<(timed: Timed) => Promise<unknown>>,
  runs = 200,
  warmup = 20,
  blocks = 10,
): Promise<number[]> {
  const untimed: Timed = (work) => work();
  for (const operation of operations) for (let index = 0; index < warmup; index++) await operation(untimed);
  const times = operations.map(() => [] as number[]);
  const perBlock = Math.max(1, Math.round(runs / blocks));
  for (let block = 0; block < blocks; block++) {
    const order = operations.map((_, index) => index);
    if (block % 2) order.reverse();
    for (const index of order) {
      const operation = operations[index] as (timed: Timed) => Promise<unknown>;
      const samples = times[index] as number[];
      const timed: Timed = async (work) => {
        const start = process.hrtime.bigint();
        const value = await work();
        samples.push(Number(process.hrtime.bigint() - start) / 1000);
        return value;
      };
      for (let run = 0; run < perBlock; run++) await operation(timed);
    }
  }
  return times.map(median);
}

/**
 * How many timed runs fit in `budgetMs` for an operation that took `sampleMicros` once, between `least` and
 * `most`: a list that scans 100,000 records takes seconds, and 200 of those would take an hour.
 */
export function affordableRuns(sampleMicros: number, budgetMs: number, least: number, most: number): number {
  const fit = Math.floor((budgetMs * 1000) / Math.max(sampleMicros, 1));
  return Math.max(least, Math.min(most, fit));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export function formatMicros(micros: number): string {
  if (micros >= 10_000) return `${(micros / 1000).toFixed(0)} ms`;
  if (micros >= 1000) return `${(micros / 1000).toFixed(2)} ms`;
  return `${micros.toFixed(1)} µs`;
}

/** Prints rows as an aligned text table. */
export function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const format = (cells: string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] as number)).join("  ");
  console.log(format(headers));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(format(row));
}
