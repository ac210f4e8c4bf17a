/** One line of a graph: a node, the node it continues from (drawn below it), and its text. */
export interface GraphRow {
  key: string;
  parent?: string;
  text: string;
}

/**
 * Draws rows as `git log --graph` does: `*` for each node, `|` for branches still open, `|/` where a
 * branch joins the one it came from. Rows must come children first, and, for a tree, in the order of a
 * depth-first walk (each subtree's rows together): then the branches that join a node are always the
 * rightmost ones, and lines never cross.
 */
export function drawGraph(rows: readonly GraphRow[]): string[] {
  // Each lane is an open branch, named by the node it continues to.
  const lanes: Array<string | undefined> = [];
  const lines: string[] = [];
  for (const row of rows) {
    const joining = lanes.flatMap((waiting, index) => (waiting === row.key ? [index] : []));
    if (joining.length === 0) {
      lanes.push(row.key);
      joining.push(lanes.length - 1);
    }
    while (joining.length > 1) {
      const right = joining.pop() as number;
      lines.push(collapse(lanes.length, right));
      lanes.splice(right, 1);
    }
    const column = joining[0] as number;
    lines.push(`${lanes.map((_, index) => (index === column ? "*" : "|")).join(" ")} ${row.text}`);
    if (row.parent !== undefined) {
      lanes[column] = row.parent;
    } else {
      if (column < lanes.length - 1) lines.push(collapse(lanes.length, column + 1, true));
      lanes.splice(column, 1);
    }
  }
  return lines;
}

/**
 * The line that closes lane `right` into the lane on its left (`| |/`), shifting the lanes after it
 * one place left. `ended`: the lane left of `right` closed instead, so it is drawn blank.
 */
function collapse(count: number, right: number, ended = false): string {
  const characters = Array.from({ length: count * 2 - 1 }, () => " ");
  for (let lane = 0; lane < right; lane++) characters[lane * 2] = ended && lane === right - 1 ? " " : "|";
  for (let lane = right; lane < count; lane++) characters[lane * 2 - 1] = "/";
  return characters.join("").trimEnd();
}
