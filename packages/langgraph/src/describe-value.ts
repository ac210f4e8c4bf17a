/** How an argument error names a value it was given, with the likely mistake when there is one. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") {
    // Shortened and JSON-quoted: a string given by mistake may be long, or hold control characters.
    return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  }
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof (value as { then?: unknown }).then === "function") return "a Promise (add the missing await)";
  return typeof value === "object" ? "an object of another kind" : `the ${typeof value} ${String(value)}`;
}
