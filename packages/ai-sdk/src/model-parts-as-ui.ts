import { isRecord, type Json } from "./namespace.js";
import { dataUrl } from "./ui-part-to-contents.js";

/**
 * An `ai-sdk.custom` or `ai-sdk.reasoning-file` content `fromModelMessages` wrote (7's model parts), as the UI
 * part AI SDK 7 validates: the model part's `providerOptions` as `providerMetadata`, and a reasoning file's
 * `data` (a URL, base64, or tagged `{ type: "url" | "data" }`) as a `url`. Contents from UI parts pass unchanged.
 */
export function modelPartAsUIPart(type: string, content: Json): Json {
  const { type: _type, "ai-sdk": _extra, providerOptions, data, ...rest } = content;
  const metadata: Json = providerOptions === undefined ? {} : { providerMetadata: providerOptions };
  if (type === "custom") return { ...rest, ...metadata, type };
  if (type !== "reasoning-file" || data === undefined) return { ...content, type };
  return { ...rest, type, url: urlOf(data, String(content.mediaType)), ...metadata };
}

/** As stored, URL objects are their href and bytes base64 (see revive.ts). */
function urlOf(data: unknown, mediaType: string): string {
  if (isRecord(data)) return urlOf(data.type === "url" ? data.url : data.data, mediaType);
  const text = String(data);
  return /^[a-z][a-z\d+.-]*:/i.test(text) ? text : dataUrl(mediaType, text);
}
