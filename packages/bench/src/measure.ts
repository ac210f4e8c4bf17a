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
  for (const operation of operations) for (let index = 0; index < warmup; index++) await operation();
  const times = operations.map(() => [] as number[]);
  const perBlock = Math.max(1, Math.round(runs / blocks));
  for (let block = 0; block < blocks; block++) {
    const order = operations.map((_, index) => index);
    if (block % 2) order.reverse();
    for (const index of order) {
      const operation = operations[index] as () => Promise<unknown>;
      for (let run = 0; run < perBlock; run++) {
        const start = process.hrtime.bigint();
        await operation();
        (times[index] as number[]).push(Number(process.hrtime.bigint() - start) / 1000);
      }
    }
  }
  return times.map(median);
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
