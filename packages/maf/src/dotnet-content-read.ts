import { MafDocumentError } from "./errors.js";
import { isEmptyObject, isJsonObject, type Json, type JsonObject, withoutKeys } from "./json-value.js";
import { SKEIN_KEY } from "./python-content-fields.js";
import type { ContentPlace } from "./python-content-read.js";

/**
 * The `$type`s of `AIContent` that System.Text.Json knows (dotnet/extensions
 * src/Libraries/Microsoft.Extensions.AI.Abstractions/Contents/AIContent.cs, commit 5862342c of 2026-08-19,
 * Microsoft.Extensions.AI.Abstractions 10.10). Any other `$type` makes MAF .NET's reader throw.
 */
export const DOTNET_CONTENT_TYPES: ReadonlySet<string> = new Set([
  "data",
  "error",
  "functionCall",
  "functionResult",
  "hostedFile",
  "hostedVectorStore",
  "text",
  "reasoning",
  "uri",
  "usage",
  "toolCall",
  "toolResult",
  "inputRequest",
  "inputResponse",
  "toolApprovalRequest",
  "toolApprovalResponse",
  "mcpServerToolCall",
  "mcpServerToolResult",
  "imageGenerationToolCall",
  "imageGenerationToolResult",
  "codeInterpreterToolCall",
  "codeInterpreterToolResult",
  "webSearchToolCall",
  "webSearchToolResult",
]);

/** `UsageDetails` properties (UsageDetails.cs) and the skein counts they are. */
export const DOTNET_USAGE: ReadonlyMap<string, string> = new Map([
  ["inputTokenCount", "inputTokens"],
  ["outputTokenCount", "outputTokens"],
  ["totalTokenCount", "totalTokens"],
  ["cachedInputTokenCount", "cachedInputTokens"],
  ["reasoningTokenCount", "reasoningTokens"],
]);

const DATA_URI = /^data:([^,]*?);base64,((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/s;

/**
 * Checks an `AIContent` as System.Text.Json reads it with MAF's default options: an object whose `$type`
 * is its first property and one `AIContent` declares.
 */
export function checkDotnetContent(value: Json, place: ContentPlace): JsonObject {
  const { document, path } = place;
  if (!isJsonObject(value))
    throw new MafDocumentError(document, path, "a content is a JSON object with a `$type`");
  const keys = Object.keys(value);
  if (!("$type" in value))
    throw new MafDocumentError(document, path, "a content needs its `$type` (text, functionCall, …)");
  if (keys[0] !== "$type")
    throw new MafDocumentError(
      document,
      [...path, "$type"],
      "`$type` must be the first property: System.Text.Json refuses it elsewhere by default",
    );
  if (typeof value.$type !== "string" || !DOTNET_CONTENT_TYPES.has(value.$type))
    throw new MafDocumentError(
      document,
      [...path, "$type"],
      `unknown content $type ${JSON.stringify(value.$type)}: MAF .NET's reader refuses it`,
    );
  if (value.additionalProperties != null && !isJsonObject(value.additionalProperties))
    throw new MafDocumentError(
      document,
      [...path, "additionalProperties"],
      "additionalProperties is an object",
    );
  return value;
}

/**
 * An `AIContent` as skein content. Types skein has map to them; .NET fields MAF Python also has go to `maf`
 * under Python's names (so the content crosses languages), other .NET fields to `mafDotnet`; a `$type` skein
 * has nothing for is kept as `maf.dotnet.<$type>`. What skein put in `additionalProperties.skein` comes back.
 */
export function dotnetContentToSkein(value: JsonObject): JsonObject {
  const type = value.$type as string;
  const properties = isJsonObject(value.additionalProperties) ? value.additionalProperties : {};
  const own = isJsonObject(properties[SKEIN_KEY]) ? (properties[SKEIN_KEY] as JsonObject) : {};
  const kept = withoutKeys(properties, [SKEIN_KEY]);
  const fields = withoutKeys(value, ["$type", "additionalProperties"]);
  const mapped = mapDotnet(type, fields);
  if (!mapped)
    return {
      type: `maf.dotnet.${type}`,
      ...fields,
      ...(isEmptyObject(properties) ? {} : { additionalProperties: properties }),
    };
  if ((mapped.content.type as string).startsWith("maf."))
    return { ...mapped.content, additional_properties: kept, ...own };
  const bag: JsonObject = { ...mapped.bag, ...(isEmptyObject(kept) ? {} : { additional_properties: kept }) };
  const ownBag = isJsonObject(own.maf) ? own.maf : {};
  const mergedBag = { ...bag, ...ownBag };
  const dotnet = { ...withoutKeys(fields, mapped.used), ...mapped.dotnet };
  const { maf: _maf, ...ownRest } = own;
  return {
    ...mapped.content,
    ...ownRest,
    ...(isEmptyObject(mergedBag) ? {} : { maf: mergedBag }),
    ...(isEmptyObject(dotnet) ? {} : { mafDotnet: dotnet }),
  };
}

interface Mapped {
  content: JsonObject;
  /** The .NET fields used. */
  used: string[];
  /** MAF Python's names for .NET fields skein has no field for. */
  bag?: JsonObject;
  /** Parts of the used fields skein has no place for, kept as .NET wrote them. */
  dotnet?: JsonObject;
}

function mapDotnet(type: string, fields: JsonObject): Mapped | undefined {
  const text = fields.text;
  switch (type) {
    case "text":
      return typeof text === "string" ? { content: { type: "text", text }, used: ["text"] } : undefined;
    case "reasoning":
      if (typeof text !== "string") return undefined;
      return {
        content: { type: "reasoning", text },
        used: ["text", "protectedData"],
        ...(fields.protectedData == null ? {} : { bag: { protected_data: fields.protectedData } }),
      };
    case "data": {
      const match = typeof fields.uri === "string" ? DATA_URI.exec(fields.uri) : null;
      if (!match || match[1] === "") return undefined;
      return {
        content: { type: "data", mediaType: match[1] as string, data: match[2] as string },
        used: ["uri", "name"],
        ...(fields.name == null ? {} : { bag: { name: fields.name } }),
      };
    }
    case "uri":
      if (typeof fields.uri !== "string" || fields.uri === "") return undefined;
      return {
        content: {
          type: "uri",
          uri: fields.uri,
          ...(typeof fields.mediaType === "string" ? { mediaType: fields.mediaType } : {}),
        },
        used: ["uri", "mediaType"],
      };
    case "hostedFile":
      if (typeof fields.fileId !== "string" || fields.fileId === "") return undefined;
      return {
        content: {
          type: "file",
          fileId: fields.fileId,
          ...(typeof fields.name === "string" ? { name: fields.name } : {}),
          ...(typeof fields.mediaType === "string" ? { mediaType: fields.mediaType } : {}),
        },
        used: ["fileId", "name", "mediaType"],
      };
    case "hostedVectorStore":
      // MAF Python's hosted_vector_store, kept as skein keeps that type.
      if (typeof fields.vectorStoreId !== "string") return undefined;
      return {
        content: {
          type: "maf.hosted_vector_store",
          vector_store_id: fields.vectorStoreId,
          additional_properties: {},
        },
        used: ["vectorStoreId"],
      };
    case "usage":
      return mapUsage(fields);
    case "error":
      if (typeof fields.message !== "string") return undefined;
      return {
        content: {
          type: "error",
          message: fields.message,
          ...(typeof fields.errorCode === "string" ? { code: fields.errorCode } : {}),
        },
        used: ["message", "errorCode", "details"],
        ...(fields.details == null ? {} : { bag: { error_details: fields.details } }),
      };
    case "functionCall":
      if (
        typeof fields.callId !== "string" ||
        fields.callId === "" ||
        typeof fields.name !== "string" ||
        fields.name === ""
      )
        return undefined;
      if (!isJsonObject(fields.arguments)) return undefined;
      return {
        content: {
          type: "function_call",
          callId: fields.callId,
          name: fields.name,
          arguments: fields.arguments,
        },
        used: ["callId", "name", "arguments", "informationalOnly"],
        ...(fields.informationalOnly === true ? { bag: { informational_only: true } } : {}),
      };
    case "functionResult":
      if (typeof fields.callId !== "string" || fields.callId === "" || !("result" in fields))
        return undefined;
      return {
        content: { type: "function_result", callId: fields.callId, result: fields.result as Json },
        used: ["callId", "result"],
      };
    default:
      return undefined;
  }
}

function mapUsage(fields: JsonObject): Mapped | undefined {
  const details = fields.details;
  if (!isJsonObject(details)) return undefined;
  const usage: JsonObject = { type: "usage" };
  for (const [dotnetName, skeinName] of DOTNET_USAGE) {
    const count = details[dotnetName];
    if (count === undefined || count === null) continue;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 0) return undefined;
    usage[skeinName] = count;
  }
  // Counts skein has no name for (audio and text splits, additionalCounts) stay .NET's, under `mafDotnet`.
  const rest = withoutKeys(details, DOTNET_USAGE.keys());
  return { content: usage, used: ["details"], ...(isEmptyObject(rest) ? {} : { dotnet: { details: rest } }) };
}
