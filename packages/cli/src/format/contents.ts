import type { Content, Message } from "@skein/thread-core";

/**
 * A content as people read it in a transcript: text as is, a tool call as `→ name({…})`, its result as
 * `← {…}`, anything else as a short bracketed note.
 */
export function describeContent(content: Content): string {
  const fields = content as Record<string, unknown>;
  switch (content.type) {
    case "text":
      return String(fields.text);
    case "reasoning":
      return `(reasoning) ${String(fields.text)}`;
    case "function_call": {
      const args = typeof fields.arguments === "string" ? fields.arguments : JSON.stringify(fields.arguments);
      return `→ ${String(fields.name)}(${args})`;
    }
    case "function_result":
      return `← ${JSON.stringify(fields.result)}${fields.isError === true ? " (error)" : ""}`;
    case "data":
      return `[data ${String(fields.mediaType)}, ${Math.floor((String(fields.data).length * 3) / 4)} bytes]`;
    case "uri":
      return `[${fields.mediaType ? `${String(fields.mediaType)} ` : ""}${String(fields.uri)}]`;
    case "file":
      return `[file ${String(fields.fileId)}${fields.name ? ` ${String(fields.name)}` : ""}]`;
    case "usage":
      return `[usage ${describeUsage(fields)}]`;
    case "error":
      return `[error${fields.code ? ` ${String(fields.code)}` : ""}: ${String(fields.message)}]`;
    default:
      return `[${content.type}]`;
  }
}

/** The message's contents on one line, for summaries and the demo. */
export function describeContents(message: Message): string {
  return message.contents.map(describeContent).join(" ");
}

/** The start of a message, for one-line lists: `assistant: Yes: 24°C and clear.` */
export function excerpt(message: Message, width = 60): string {
  const text = `${message.role}: ${describeContents(message)}`.replace(/\s+/g, " ");
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

function describeUsage(fields: Record<string, unknown>): string {
  const parts = [
    ["inputTokens", "in"],
    ["outputTokens", "out"],
    ["totalTokens", "total"],
  ]
    .filter(([key]) => typeof fields[key as string] === "number")
    .map(([key, label]) => `${String(fields[key as string])} ${label}`);
  return parts.length > 0 ? parts.join(", ") : "tokens";
}
