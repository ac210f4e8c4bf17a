import { MafDocumentError } from "./errors.js";
import { isEmptyObject, isJsonObject, type Json, type JsonObject, withoutKeys } from "./json-value.js";
import { CONTENT_FIELD_ORDER, SKEIN_KEY } from "./python-content-fields.js";
import { type ContentPlace, checkPythonContent } from "./python-content-read.js";
import { USAGE_FROM_MAF, USAGE_KEY_ORDER } from "./usage-fields.js";

/** The fields each skein content type defines; anything else a content carries is skein-only. */
export const SKEIN_CONTENT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  text: ["type", "text"],
  reasoning: ["type", "text"],
  data: ["type", "mediaType", "data"],
  uri: ["type", "uri", "mediaType"],
  file: ["type", "fileId", "name", "mediaType"],
  usage: ["type", ...USAGE_FROM_MAF.values()],
  error: ["type", "message", "code"],
  function_call: ["type", "callId", "name", "arguments"],
  function_result: ["type", "callId", "result", "isError"],
};

/**
 * A skein content as MAF Python's `Content.to_dict()` writes it: fields in MAF's order, `additional_properties`
 * always present. What MAF has no field for goes to `additional_properties.skein`, never to a key of its own,
 * since MAF's reader refuses unknown keys.
 */
export function skeinContentToPython(content: JsonObject, place: ContentPlace): JsonObject {
  const type = content.type as string;
  if (type.startsWith("maf.") && !type.startsWith("maf.dotnet.")) {
    // As MAF writes every content: its fields in order, `additional_properties` always there.
    const verbatim = ordered(type.slice(4), { additional_properties: {}, ...withoutKeys(content, ["type"]) });
    checkPythonContent(verbatim, place);
    return verbatim;
  }
  const known = SKEIN_CONTENT_FIELDS[type];
  if (!known) return { type, additional_properties: { [SKEIN_KEY]: withoutKeys(content, ["type"]) } };
  const bag = isJsonObject(content.maf) ? content.maf : {};
  if (content.maf !== undefined && !isJsonObject(content.maf))
    throw new MafDocumentError(
      place.document,
      [...place.path, "maf"],
      "`maf` holds MAF's own fields as an object",
    );
  const extras = withoutKeys(content, [...known, "maf"]);
  // MAF says "failed" with an exception text. skein's own failed result has none: one is written from the
  // result, and `isError` in skein's part says so, so that reading it back gives the content it was.
  if (
    type === "function_result" &&
    content.isError !== undefined &&
    (content.isError === false || bag.exception === undefined)
  )
    extras.isError = content.isError;
  const properties: JsonObject = isJsonObject(bag.additional_properties)
    ? { ...bag.additional_properties }
    : {};
  if (!isEmptyObject(extras)) properties[SKEIN_KEY] = extras;
  const fields: JsonObject = {
    ...bag,
    ...pythonFields(type, content, bag),
    additional_properties: properties,
  };
  const written = ordered(pythonType(type), fields);
  checkPythonContent(written, place);
  return written;
}

function pythonType(type: string): string {
  return type === "reasoning" ? "text_reasoning" : type === "file" ? "hosted_file" : type;
}

/** The MAF fields a skein content's own fields become. */
function pythonFields(type: string, content: JsonObject, bag: JsonObject): JsonObject {
  const optional = (name: string, value: Json | undefined): JsonObject =>
    value === undefined ? {} : { [name]: value };
  switch (type) {
    case "text":
    case "reasoning":
      return { text: content.text as Json };
    case "data":
      return {
        uri: `data:${content.mediaType};base64,${content.data}`,
        media_type: content.mediaType as Json,
      };
    case "uri":
      return { uri: content.uri as Json, ...optional("media_type", content.mediaType) };
    case "file":
      return {
        file_id: content.fileId as Json,
        ...optional("name", content.name),
        ...optional("media_type", content.mediaType),
      };
    case "usage":
      return {
        usage_details: usageDetails(content, isJsonObject(bag.usage_details) ? bag.usage_details : {}),
      };
    case "error":
      return { message: content.message as Json, ...optional("error_code", content.code) };
    case "function_call":
      return {
        call_id: content.callId as Json,
        name: content.name as Json,
        arguments: content.arguments as Json,
      };
    default: {
      const result = content.result as Json;
      // A failed result MAF reads as one that has an exception; skein's own keeps its result as the text.
      const exception: JsonObject =
        content.isError === true && bag.exception === undefined
          ? { exception: typeof result === "string" ? result : JSON.stringify(result) }
          : {};
      return { call_id: content.callId as Json, result, ...exception };
    }
  }
}

function usageDetails(content: JsonObject, extra: JsonObject): JsonObject {
  const counts: JsonObject = { ...extra };
  for (const [mafName, skeinName] of USAGE_FROM_MAF) {
    if (content[skeinName] !== undefined) counts[mafName] = content[skeinName] as Json;
  }
  return ordered(undefined, counts, USAGE_KEY_ORDER);
}

/** The fields in MAF's order (`type` first when given); keys MAF does not order keep theirs, at the end. */
function ordered(
  type: string | undefined,
  fields: JsonObject,
  order: readonly string[] = CONTENT_FIELD_ORDER,
): JsonObject {
  const result: JsonObject = type === undefined ? {} : { type };
  for (const key of order) if (fields[key] !== undefined) result[key] = fields[key] as Json;
  for (const [key, value] of Object.entries(fields))
    if (!(key in result) && key !== "type") result[key] = value;
  return result;
}
