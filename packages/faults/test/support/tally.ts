/** Adds `count` to `counts[group][key]`, creating the group on first use. */
export function tally(
  counts: Record<string, Record<string, number>>,
  group: string,
  key: string,
  count = 1,
): void {
  const row = counts[group] ?? {};
  row[key] = (row[key] ?? 0) + count;
  counts[group] = row;
}
