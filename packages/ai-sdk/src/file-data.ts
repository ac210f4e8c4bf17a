import type { Content } from "@skein/thread-core";
import { AI_MAJOR } from "./ai-major.js";
import { binaryToContent, contentToBinary } from "./binary-content.js";
import { MessageMappingError } from "./errors.js";
import { isRecord, type Json } from "./namespace.js";

/**
 * A model file or image part's data as a skein content: bytes and URLs as `data` / `uri` (binaryToContent),
 * AI SDK 7's tagged `FileData` by its tag (`data`, `url` with its URL object, `text` as base64 `data`,
 * `reference`) and a provider reference (`{ openai: "file-…" }`) as a `file` content naming its first id.
 * `keep.fileData` says which tag the value had, so it comes back in the same shape.
 */
export function fileDataToContent(
  value: unknown,
  mediaType: string | undefined,
  fallbackMediaType: string,
  path: Array<string | number>,
): { content: Json; keep: Json } {
  const bare = value instanceof URL || value instanceof ArrayBuffer || value instanceof Uint8Array;
  if (bare || typeof value === "string" || !isRecord(value)) {
    return binaryToContent(value, mediaType, fallbackMediaType, path);
  }
  if (AI_MAJOR === 6) {
    throw new MessageMappingError(
      "file data as an object (AI SDK 7's { type: 'data' | 'url' | 'reference' | 'text' } or a provider reference) is not taken by the installed ai 6: give bytes, base64, a data URL or a URL",
      path,
    );
  }
  const tagged = (found: { content: Json; keep: Json }, keep: Json) => ({
    content: found.content,
    keep: { ...found.keep, ...keep },
  });
  switch (value.type) {
    case "data":
      return tagged(binaryToContent(value.data, mediaType, fallbackMediaType, [...path, "data"]), {
        fileData: "data",
      });
    case "url": {
      if (!(value.url instanceof URL)) {
        throw new MessageMappingError("file data of type url needs a URL object as its url", [
          ...path,
          "url",
        ]);
      }
      const originalUrl: Json =
        value.originalUrl === undefined ? {} : { originalUrl: String(value.originalUrl) };
      return tagged(binaryToContent(value.url, mediaType, fallbackMediaType, [...path, "url"]), {
        fileData: "url",
        ...originalUrl,
      });
    }
    case "text": {
      if (typeof value.text !== "string") {
        throw new MessageMappingError("file data of type text needs a string text", [...path, "text"]);
      }
      const data = Buffer.from(value.text, "utf8").toString("base64");
      return {
        content: { type: "data", mediaType: mediaType ?? "text/plain", data },
        keep: { fileData: "text", ...(mediaType === undefined ? { noMediaType: true } : {}) },
      };
    }
    case "reference":
      return referenceContent(value.reference, mediaType, { fileData: "reference" }, [...path, "reference"]);
    case undefined:
      return referenceContent(value, mediaType, {}, path);
    default:
      throw new MessageMappingError(
        `file data of type ${JSON.stringify(value.type)} is none of data, url, reference, text`,
        path,
      );
  }
}

function referenceContent(
  reference: unknown,
  mediaType: string | undefined,
  keep: Json,
  path: Array<string | number>,
): { content: Json; keep: Json } {
  const ids = isRecord(reference) ? Object.values(reference) : [];
  if (ids.length === 0 || ids.some((id) => typeof id !== "string")) {
    throw new MessageMappingError("a provider reference maps provider names to file ids (strings)", path);
  }
  return {
    content: { type: "file", fileId: ids[0] as string, ...(mediaType === undefined ? {} : { mediaType }) },
    keep: { ...keep, reference: reference as Json },
  };
}

/** The value `fileDataToContent` was given, from the content and what it kept (undefined: not one it wrote). */
export function contentToFileData(content: Content, keep: Json | undefined): unknown {
  if (content.type === "file") {
    if (!isRecord(keep?.reference)) return undefined;
    return keep.fileData === "reference" ? { type: "reference", reference: keep.reference } : keep.reference;
  }
  switch (keep?.fileData) {
    case "data":
      return { type: "data", data: contentToBinary(content, keep) };
    case "url":
      return {
        type: "url",
        url: contentToBinary(content, keep),
        ...(keep.originalUrl === undefined ? {} : { originalUrl: keep.originalUrl }),
      };
    case "text":
      return { type: "text", text: Buffer.from(content.data as string, "base64").toString("utf8") };
    default:
      return contentToBinary(content, keep);
  }
}
