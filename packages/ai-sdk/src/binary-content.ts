import type { Content } from "@skein/thread-core";
import { DataContentSchema } from "@skein/thread-core/driver";
import { MessageMappingError } from "./errors.js";
import type { Json } from "./namespace.js";
import { dataUrl } from "./ui-part-to-contents.js";

/** How a model part's `data` / `image` was given, so it comes back as the same kind of value. */
type Encoding = "uint8array" | "buffer" | "arraybuffer" | "base64" | "data-url" | "url" | "string";

/** A model part's file or image data as a skein `data` content (bytes, base64) or `uri` content (URLs). */
export function binaryToContent(
  value: unknown,
  mediaType: string | undefined,
  fallbackMediaType: string,
  path: Array<string | number>,
): { content: Json; keep: Json } {
  const keep: Json = mediaType === undefined ? { noMediaType: true } : {};
  const type = mediaType ?? fallbackMediaType;
  const bytes = (base64: string, encoding: Encoding) => ({
    content: { type: "data", mediaType: type, data: base64 },
    keep: { ...keep, encoding },
  });
  // Text given as base64 may not be: it is held as `data` only when it is.
  const text = (base64: string, encoding: Encoding) => {
    const found = bytes(base64, encoding);
    return DataContentSchema.safeParse(found.content).success ? found : undefined;
  };
  const uri = (text: string, encoding: Encoding) => ({
    content: { type: "uri", uri: text, ...(mediaType === undefined ? {} : { mediaType }) },
    keep: { ...keep, encoding },
  });
  if (value instanceof URL) return uri(value.href, "url");
  if (value instanceof ArrayBuffer) {
    return bytes(Buffer.from(value).toString("base64"), "arraybuffer");
  }
  if (value instanceof Uint8Array) {
    const encoding = Buffer.isBuffer(value) ? "buffer" : "uint8array";
    return bytes(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64"), encoding);
  }
  if (typeof value === "string") {
    const prefix = dataUrl(type, "");
    if (mediaType !== undefined && value.startsWith(prefix)) {
      const found = text(value.slice(prefix.length), "data-url");
      if (found) return found;
    }
    if (/^[a-z][a-z\d+.-]*:/i.test(value)) return uri(value, "string");
    const found = text(value, "base64");
    if (found) return found;
  }
  throw new MessageMappingError("file data must be bytes, base64, a data URL or a URL", path);
}

/** The value `binaryToContent` was given, from the content and what it kept. */
export function contentToBinary(content: Content, keep: Json | undefined): unknown {
  if (content.type === "uri") {
    const uri = content.uri as string;
    if (keep?.encoding === "string" || !URL.canParse(uri)) return uri;
    return new URL(uri);
  }
  const base64 = content.data as string;
  switch (keep?.encoding) {
    case "uint8array":
      return new Uint8Array(Buffer.from(base64, "base64"));
    case "buffer":
      return Buffer.from(base64, "base64");
    case "arraybuffer": {
      const bytes = Buffer.from(base64, "base64");
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    }
    case "data-url":
      return dataUrl(content.mediaType as string, base64);
    default:
      return base64;
  }
}
