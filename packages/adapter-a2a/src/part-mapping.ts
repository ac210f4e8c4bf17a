import type { Content } from "@skein/thread-core";
import { ContentSchema } from "@skein/thread-core/driver";
import type { PartJson } from "./a2a-json.js";

/**
 * The part metadata key that marks a data part as a skein content carried whole: contents A2A has no part
 * for (function calls, reasoning, usage…) travel as data parts and come back exactly as they were sent.
 */
export const CONTENT_MARKER = "skein.content";

const PLAIN = "text/plain";
const TEXT_KEYS = new Set(["type", "text", "mediaType"]);
const FILE_KEYS = new Set(["type", "data", "mediaType", "name"]);
const URI_KEYS = new Set(["type", "uri", "mediaType", "name"]);

/**
 * A skein content as an A2A part: text → text, data (base64) → raw bytes, uri → url. Anything else, or a
 * content with fields the part cannot hold, becomes a marked data part, so every content round-trips.
 */
export function contentToPart(content: Content): PartJson {
  const record = content as Record<string, unknown>;
  // Each plain mapping is used only where reading the part back gives this very content.
  const plainName = record.name === undefined || isFilled(record.name);
  const plainMediaType = record.mediaType === undefined || isFilled(record.mediaType);
  if (content.type === "text" && hasOnly(record, TEXT_KEYS) && plainMediaType && record.mediaType !== PLAIN) {
    return { text: String(record.text), mediaType: (record.mediaType as string | undefined) ?? PLAIN };
  }
  if (content.type === "data" && hasOnly(record, FILE_KEYS) && plainName) {
    return withFilename({ raw: String(record.data), mediaType: String(record.mediaType) }, record.name);
  }
  if (content.type === "uri" && hasOnly(record, URI_KEYS) && plainName && plainMediaType) {
    const mediaType = record.mediaType as string | undefined;
    return withFilename({ url: String(record.uri), ...(mediaType ? { mediaType } : {}) }, record.name);
  }
  return { data: content, mediaType: "application/json", metadata: { [CONTENT_MARKER]: true } };
}

/**
 * An A2A part as a skein content: text → text, raw → data, url → uri, and JSON data → `data` with
 * `application/json` and the JSON base64-encoded (the content type skein has for structured payloads).
 * A part with no content reads as nothing.
 */
export function partToContent(part: PartJson): Content | undefined {
  const marked = markedContent(part);
  if (marked) return marked;
  const extra = extraFields(part);
  if (typeof part.text === "string") {
    const mediaType = part.mediaType && part.mediaType !== PLAIN ? { mediaType: part.mediaType } : {};
    return { type: "text", text: part.text, ...mediaType, ...extra };
  }
  if (typeof part.raw === "string") {
    const mediaType = part.mediaType || "application/octet-stream";
    return { type: "data", mediaType, data: part.raw, ...extra };
  }
  if (typeof part.url === "string") {
    return { type: "uri", uri: part.url, ...(part.mediaType ? { mediaType: part.mediaType } : {}), ...extra };
  }
  if (part.data !== undefined) {
    const data = Buffer.from(JSON.stringify(part.data), "utf8").toString("base64");
    return { type: "data", mediaType: part.mediaType || "application/json", data, ...extra };
  }
  return undefined;
}

function markedContent(part: PartJson): Content | undefined {
  if (part.metadata?.[CONTENT_MARKER] !== true) return undefined;
  const result = ContentSchema.safeParse(part.data);
  return result.success ? result.data : undefined;
}

/** A part's filename and metadata, kept on the content so nothing the agent sent is dropped. */
function extraFields(part: PartJson): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (part.filename) extra.name = part.filename;
  if (part.metadata && Object.keys(part.metadata).length > 0) extra.metadata = part.metadata;
  return extra;
}

function withFilename(part: PartJson, name: unknown): PartJson {
  return isFilled(name) ? { ...part, filename: name } : part;
}

function hasOnly(record: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  return Object.keys(record).every((key) => allowed.has(key));
}

function isFilled(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
