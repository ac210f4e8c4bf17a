import type { Json } from "./json-value.js";

/**
 * JSON as Python's `json.dumps` writes it with its defaults, which MAF's Redis history uses: `", "` and `": "`
 * between items, every character above U+007F escaped as `\uXXXX` (lower-case hex). Numbers are written as
 * JavaScript writes them; a Python float with no fraction (`1.0`) cannot be told from an int once parsed.
 */
export function pythonJsonDumps(value: Json): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return typeof value === "string" ? asciiOnly(text) : text;
  }
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
  return `{${Object.entries(value)
    .map(([key, item]) => `${asciiOnly(JSON.stringify(key))}: ${pythonJsonDumps(item)}`)
    .join(", ")}}`;
}

function asciiOnly(text: string): string {
  return text.replace(
    /[\u0080-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
