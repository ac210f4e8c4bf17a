/** A node to place: its key and the node it continues from. Given children first, as `historyGraph` returns them. */
export interface LayoutInput {
  key: string;
  parent?: string;
}

/**
 * The lane (column) of each node, the way `skein log --graph` draws them: a node takes the lane of the
 * branch waiting for it (the leftmost, when several join there), a new lane when none waits, and its
 * lane then waits for its parent. Rows are the input order.
 */
export function layoutColumns(rows: readonly LayoutInput[]): Map<string, number> {
  const lanes: Array<string | undefined> = [];
  const columns = new Map<string, number>();
  for (const row of rows) {
    const joining = lanes.flatMap((waiting, index) => (waiting === row.key ? [index] : []));
    if (joining.length === 0) {
      lanes.push(row.key);
      joining.push(lanes.length - 1);
    }
    // Branches joining here end here; their lanes close from the right.
    for (const right of joining.slice(1).reverse()) lanes.splice(right, 1);
    const column = joining[0] as number;
    columns.set(row.key, column);
    if (row.parent !== undefined) lanes[column] = row.parent;
    else lanes.splice(column, 1);
  }
  return columns;
}
