import type { Message } from "@skein/thread-core";
import { describeContent } from "./contents.js";
import { visibleText } from "./visible-text.js";

/**
 * A message as a transcript entry: a header with its position, role, author and id (the id is what
 * `fork --at` and `rollback` take), then its contents indented, text lines kept as written. The header is one
 * line whatever the id or author name holds; print the entry with `Output.lines`, which shows the rest of the
 * control characters.
 */
export function transcriptEntry(message: Message, position: number, width = 3): string {
  const author = message.authorName ? ` (${message.authorName})` : "";
  const header = visibleText(`${`#${position}`.padStart(width + 1)} ${message.role}${author}  ${message.id}`);
  const indent = " ".repeat(width + 2);
  const body = message.contents.flatMap((content) =>
    describeContent(content)
      .split(/\r?\n/)
      .map((line) => `${indent}${line}`),
  );
  return [header, ...(body.length > 0 ? body : [`${indent}(no contents)`])].join("\n");
}

/** `2026-11-21T22:39:36.123Z` as `2026-11-21 22:39:36`, UTC. */
export function formatTime(iso: string | undefined): string {
  if (!iso) return "-";
  return iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "");
}
