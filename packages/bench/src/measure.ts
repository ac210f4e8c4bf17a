/** Timing helpers: medians of repeated runs, since these machines are noisy and one run means little. */

export interface Measurement {
  /** Median time of one operation, in microseconds. */
  medianMicros: number;
  runs: number;
}

/** Runs `operation` `warmup` times untimed, then `runs` times timed one by one; returns the median. */
export async function measure(
  operation: () => Promise<unknown>,
  runs = 200,
  warmup = 20,
): Promise<Measurement> {
  for (let index = 0; index < warmup; index++) await operation();
  const times: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = process.hrtime.bigint();
    await operation();
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  return { medianMicros: times[Math.floor(times.length / 2)] as number, runs };
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
