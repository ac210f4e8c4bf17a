import { formatMicros } from "./measure.js";

/** One measured subject in a scenario: its median and the row it prints as. */
export interface Result {
  scenario: string;
  subject: string;
  metric: string;
  /** Median microseconds per operation (lower is better), or undefined when the subject could not run. */
  micros?: number;
  /** Why a subject could not run here. */
  skipped?: string;
  note?: string;
}

/** Rows with each subject's ratio to the scenario's first subject (the baseline: raw limit or skein). */
export function ratioRows(results: Result[]): string[][] {
  const baselines = new Map<string, number>();
  for (const result of results) {
    const key = `${result.scenario}/${result.metric}`;
    if (result.micros !== undefined && !baselines.has(key)) baselines.set(key, result.micros);
  }
  return results.map((result) => {
    const baseline = baselines.get(`${result.scenario}/${result.metric}`);
    const ratio = result.micros !== undefined && baseline ? `${(result.micros / baseline).toFixed(2)}×` : "";
    return [
      result.scenario,
      result.metric,
      result.subject,
      result.micros === undefined ? "—" : formatMicros(result.micros),
      result.skipped ? `not run: ${result.skipped}` : ratio,
      result.note ?? "",
    ];
  });
}
