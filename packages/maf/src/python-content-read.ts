import { type JsonPath, MafDocumentError } from "./errors.js";
import { isEmptyObject, isJsonObject, type Json, type JsonObject, withoutKeys } from "./json-value.js";
import {
  CONTENT_KEYS,
  MAF_CONTENT_TYPES,
  NESTED_CONTENT_FIELDS,
  SKEIN_KEY,
} from "./python-content-fields.js";
import { USAGE_FROM_MAF } from "./usage-fields.js";

/** Where a content sits: the document's name for errors, and its JSON path. */
export interface ContentPlace {
  document: string;
  path: JsonPath;
}

/**
 * Checks a MAF Python content as `Content.from_dict` does, nested contents included: a mapping with a
 * `type`, no key `Content.__init__` does not take, no `data` string (MAF needs bytes there).
 */
export function checkPythonContent(value: Json, place: ContentPlace): void {
  const { document, path } = place;
  if (typeof value === "string") return;
  if (!isJsonObject(value))
    throw new MafDocumentError(document, path, "a content is an object with a `type` (or a string)");
  if (typeof value.type !== "string" || value.type === "")
    throw new MafDocumentError(
      document,
      path,
      "Content mapping requires 'type' (MAF's reader refuses a content without one)",
    );
  for (const key of Object.keys(value)) {
    if (key === "data" && value.type === "data")
      throw new MafDocumentError(
        document,
        [...path, key],
        "MAF keeps data content as a `data:` URI in `uri`; a `data` string is refused by MAF (Could not encode data to base64)",
      );
    if (!CONTENT_KEYS.has(key))
      throw new MafDocumentError(
        document,
        [...path, key],
        `unknown content key ${JSON.stringify(key)}: MAF's reader refuses it (Content.__init__() got an unexpected keyword argument '${key}')`,
      );
  }
  if (value.additional_properties != null && !isJsonObject(value.additional_properties))
    throw new MafDocumentError(
      document,
      [...path, "additional_properties"],
      "additional_properties is an object",
    );
  for (const field of NESTED_CONTENT_FIELDS) {
    const nested = value[field];
    if (field === "function_call" && isJsonObject(nested))
      checkPythonContent(nested, { document, path: [...path, field] });
    if (field !== "function_call" && Array.isArray(nested))
      nested.forEach((item, index) => {
        if (isJsonObject(item)) checkPythonContent(item, { document, path: [...path, field, index] });
      });
  }
}

/**
 * A checked MAF Python content as skein content. The types skein has (text, reasoning, data, uri, file, usage,
 * error, function call and result) map to them, with MAF's other fields kept verbatim under `maf`; every other
 * type is kept verbatim as `maf.<type>`. What skein wrote into `additional_properties.skein` comes back as it was.
 */
export function pythonContentToSkein(value: Json): JsonObject {
  if (typeof value === "string") return { type: "text", text: value };
  const content = value as JsonObject;
  const type = content.type as string;
  const properties = isJsonObject(content.additional_properties) ? content.additional_properties : {};
  const own = isJsonObject(properties[SKEIN_KEY]) ? (properties[SKEIN_KEY] as JsonObject) : undefined;
  const mapped = mapKnown(type, content);
  if (mapped) {
    const made = type === "function_result" && own?.isError === true ? ["exception"] : [];
    const bag = {
      ...withoutKeys(content, ["type", ...mapped.used, "additional_properties", ...made]),
      ...mapped.bag,
    };
    const kept = withoutKeys(properties, [SKEIN_KEY]);
    if (!isEmptyObject(kept)) bag.additional_properties = kept;
    return { ...(own ?? {}), ...mapped.content, ...(isEmptyObject(bag) ? {} : { maf: bag }) };
  }
  // A skein content of a type MAF does not have, written by skein: `type` and `additional_properties.skein` only.
  const onlyOurs = Object.keys(content).every((key) => key === "type" || key === "additional_properties");
  if (own && !MAF_CONTENT_TYPES.has(type) && onlyOurs && Object.keys(properties).length === 1)
    return { type, ...own };
  return { ...content, type: `maf.${type}` };
}

interface Mapped {
  content: JsonObject;
  /** The MAF fields the skein content holds. */
  used: string[];
  /** Parts of those fields skein has no place for, kept under `maf`. */
  bag?: JsonObject;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATA_URI = /^data:([^,]*?);base64,(.*)$/s;

/** The skein form of a content of a type skein has, or undefined when skein's schema cannot hold it exactly. */
function mapKnown(type: string, content: JsonObject): Mapped | undefined {
  const text = content.text;
  switch (type) {
    case "text":
      return typeof text === "string" ? { content: { type: "text", text }, used: ["text"] } : undefined;
    case "text_reasoning":
      return typeof text === "string" ? { content: { type: "reasoning", text }, used: ["text"] } : undefined;
    case "data":
      return mapData(content);
    case "uri":
      if (typeof content.uri !== "string" || content.uri === "") return undefined;
      if (content.media_type != null && typeof content.media_type !== "string") return undefined;
      return {
        content: {
          type: "uri",
          uri: content.uri,
          ...(content.media_type == null ? {} : { mediaType: content.media_type }),
        },
        used: ["uri", "media_type"],
      };
    case "hosted_file":
      return mapFile(content);
    case "usage":
      return mapUsage(content);
    case "error":
      if (typeof content.message !== "string") return undefined;
      if (content.error_code != null && typeof content.error_code !== "string") return undefined;
      return {
        content: {
          type: "error",
          message: content.message,
          ...(content.error_code == null ? {} : { code: content.error_code }),
        },
        used: ["message", "error_code"],
      };
    case "function_call":
      return mapFunctionCall(content);
    case "function_result":
      return mapFunctionResult(content);
    default:
      return undefined;
  }
}

function mapData(content: JsonObject): Mapped | undefined {
  const match = typeof content.uri === "string" ? DATA_URI.exec(content.uri) : null;
  if (!match || match[1] === "" || match[1] !== content.media_type || !BASE64.test(match[2] as string))
    return undefined;
  return {
    content: { type: "data", mediaType: match[1] as string, data: match[2] as string },
    used: ["uri", "media_type"],
  };
}

function mapFile(content: JsonObject): Mapped | undefined {
  const { file_id: fileId, name, media_type: mediaType } = content;
  if (typeof fileId !== "string" || fileId === "") return undefined;
  if ((name != null && typeof name !== "string") || (mediaType != null && typeof mediaType !== "string"))
    return undefined;
  return {
    content: {
      type: "file",
      fileId,
      ...(name == null ? {} : { name }),
      ...(mediaType == null ? {} : { mediaType }),
    },
    used: ["file_id", "name", "media_type"],
  };
}

function mapUsage(content: JsonObject): Mapped | undefined {
  const details = content.usage_details;
  if (!isJsonObject(details)) return undefined;
  const usage: JsonObject = { type: "usage" };
  for (const [mafName, skeinName] of USAGE_FROM_MAF) {
    const count = details[mafName];
    if (count === undefined) continue;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 0) return undefined;
    usage[skeinName] = count;
  }
  // Counts skein has no name for stay in MAF's own dictionary, under `maf`.
  const rest = withoutKeys(details, USAGE_FROM_MAF.keys());
  return {
    content: usage,
    used: ["usage_details"],
    ...(isEmptyObject(rest) ? {} : { bag: { usage_details: rest } }),
  };
}

function mapFunctionCall(content: JsonObject): Mapped | undefined {
  const { call_id: callId, name, arguments: callArguments } = content;
  if (typeof callId !== "string" || callId === "" || typeof name !== "string" || name === "")
    return undefined;
  if (typeof callArguments !== "string" && !isJsonObject(callArguments)) return undefined;
  return {
    content: { type: "function_call", callId, name, arguments: callArguments },
    used: ["call_id", "name", "arguments"],
  };
}

function mapFunctionResult(content: JsonObject): Mapped | undefined {
  const { call_id: callId, result } = content;
  if (typeof callId !== "string" || callId === "" || result === undefined) return undefined;
  return {
    content: {
      type: "function_result",
      callId,
      result,
      ...(content.exception == null ? {} : { isError: true }),
    },
    used: ["call_id", "result"],
  };
}
