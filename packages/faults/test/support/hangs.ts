/** What a document looked like at its top level, and its sub-threads (a workflow's): enough to tell a hang. */
export interface DocumentShape {
  $type?: unknown;
  keys: string[];
  threads?: DocumentShape[];
}

export function shapeOf(value: unknown): DocumentShape {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { keys: [] };
  const record = value as Record<string, unknown>;
  const threads = record.threads;
  const nested =
    typeof threads === "object" && threads !== null && !Array.isArray(threads)
      ? Object.values(threads).map(shapeOf)
      : undefined;
  return { $type: record.$type, keys: Object.keys(record).sort(), ...(nested ? { threads: nested } : {}) };
}

/** The shapes of the documents in a file's text: one JSON value, an array of them, or JSON Lines. */
export function shapesOfText(text: string): DocumentShape[] {
  const values: unknown[] = [];
  try {
    const whole = JSON.parse(text.replace(/^\uFEFF/, ""));
    values.push(...(Array.isArray(whole) ? whole : [whole]));
  } catch {
    for (const line of text.split("\n")) {
      try {
        values.push(JSON.parse(line));
      } catch {
        // not a document
      }
    }
  }
  return values.map(shapeOf);
}

const hung = Symbol("hung");

/** The call's result, or `undefined` with `settled: false` when it has not settled within `withinMs`. */
export async function settleWithin<T>(
  call: () => Promise<T> | T,
  withinMs: number,
): Promise<{ settled: true; value: T } | { settled: false }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof hung>((resolve) => {
    timer = setTimeout(() => resolve(hung), withinMs);
  });
  try {
    const value = await Promise.race([Promise.resolve().then(call), deadline]);
    return value === hung ? { settled: false } : { settled: true, value: value as T };
  } finally {
    clearTimeout(timer);
  }
}
