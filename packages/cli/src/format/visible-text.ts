/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC starts CSI and OSC sequences, BEL ends
 * OSC), DEL, C1 controls (U+009B is a one-character CSI), the line and paragraph separators, and the
 * bidirectional embeddings, overrides and isolates, which reorder the text after them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, less tab and line feed: the layout of text written on several lines. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from a store or a file (ids, message text, labels, metadata, error messages) made safe to print: every
 * control character is written as its JSON escape, `\u001b` for ESC, so it shows instead of driving the
 * terminal. `"line"` escapes line feeds and tabs too (a label or an id stays on its line); `"lines"` keeps
 * them, for text shown as it was written. The one rendering of every human-readable output; `--json` and
 * export output are never passed through it.
 * @example visibleText("\u001b]0;pwned\u0007") // "\\u001b]0;pwned\\u0007"
 */
export function visibleText(text: string, layout: "line" | "lines" = "line"): string {
  return text.replace(layout === "line" ? ANY_CONTROL : CONTROL_BUT_LAYOUT, escaped);
}

function escaped(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
