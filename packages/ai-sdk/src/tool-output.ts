import { AI_MAJOR } from "./ai-major.js";
import { isRecord } from "./namespace.js";

/**
 * A `content` tool output's items as the installed major takes them. 6's `media` (base64 `data`, `mediaType`)
 * and 7's `file` with `data: { type: "data", data: <base64> }` hold the same thing: a result one major stored
 * reads as the other's item under the other major. Items with no counterpart (7's URL, reference and text file
 * data, `file-reference`, `image-file-reference`) stay as they were stored.
 */
export function outputItemsForInstalledMajor(items: unknown): unknown {
  if (!Array.isArray(items)) return items;
  return items.map((item: unknown) => {
    if (!isRecord(item)) return item;
    if (AI_MAJOR === 7 && item.type === "media") {
      const { type: _type, data, ...rest } = item;
      return { ...rest, type: "file", data: { type: "data", data } };
    }
    const data = item.data as { type?: unknown; data?: unknown } | undefined;
    if (AI_MAJOR === 6 && item.type === "file" && data?.type === "data" && typeof data.data === "string") {
      const { type: _type, data: _data, ...rest } = item;
      return { ...rest, type: "media", data: data.data };
    }
    return item;
  });
}
