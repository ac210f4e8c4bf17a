import { DOTNET_USAGE } from "./dotnet-content-read.js";
import { isEmptyObject, isJsonObject, type Json, type JsonObject, withoutKeys } from "./json-value.js";
import { SKEIN_KEY } from "./python-content-fields.js";

/** A .NET content, and what of the skein content it could not hold (put in its `additionalProperties.skein`). */
interface Written {
  /** `$type` and the .NET fields, in the order the class declares them. */
  fields: JsonObject;
  /** Top-level skein fields the .NET fields hold. */
  used: string[];
  /** `maf` fields the .NET fields hold. */
  usedBag?: string[];
}

/**
 * A skein content as Microsoft.Extensions.AI's `AIContent` JSON, `$type` first; what .NET has no field for
 * goes to `additionalProperties.skein`. Undefined for a content no `AIContent` type can stand for (MAF Python's
 * hosted tool contents, a string of function arguments, skein's unknown types): the message keeps those.
 */
export function skeinContentToDotnet(content: JsonObject): JsonObject | undefined {
  const bag = isJsonObject(content.maf) ? content.maf : {};
  const written = nativeFields(content, bag);
  if (!written) return undefined;
  const leftBag = withoutKeys(bag, [...(written.usedBag ?? []), "additional_properties"]);
  const left: JsonObject = {
    ...withoutKeys(content, ["type", "maf", "mafDotnet", ...written.used]),
    ...(isEmptyObject(leftBag) ? {} : { maf: leftBag }),
  };
  const properties: JsonObject = {
    ...(isJsonObject(bag.additional_properties) ? bag.additional_properties : {}),
    ...(isJsonObject(content.additionalProperties) && (content.type as string).startsWith("maf.dotnet.")
      ? content.additionalProperties
      : {}),
    ...(content.type === "maf.hosted_vector_store" && isJsonObject(content.additional_properties)
      ? content.additional_properties
      : {}),
  };
  if (!isEmptyObject(left)) properties[SKEIN_KEY] = left;
  // Usage puts its .NET-only counts back into `details` itself.
  const dotnet =
    isJsonObject(content.mafDotnet) && !written.used.includes("mafDotnet") ? content.mafDotnet : {};
  return {
    ...written.fields,
    ...dotnet,
    ...(isEmptyObject(properties) ? {} : { additionalProperties: properties }),
  };
}

function nativeFields(content: JsonObject, bag: JsonObject): Written | undefined {
  const type = content.type as string;
  const optional = (name: string, value: Json | undefined): JsonObject =>
    value == null ? {} : { [name]: value };
  switch (type) {
    case "text":
      return { fields: { $type: "text", text: content.text as Json }, used: ["text"] };
    case "reasoning":
      return {
        fields: {
          $type: "reasoning",
          text: content.text as Json,
          ...optional("protectedData", bag.protected_data),
        },
        used: ["text"],
        usedBag: ["protected_data"],
      };
    case "data":
      return {
        fields: {
          $type: "data",
          uri: `data:${content.mediaType};base64,${content.data}`,
          ...optional("name", bag.name),
        },
        used: ["mediaType", "data"],
        usedBag: ["name"],
      };
    case "uri":
      return {
        fields: { $type: "uri", uri: content.uri as Json, ...optional("mediaType", content.mediaType) },
        used: ["uri", "mediaType"],
      };
    case "file":
      return {
        fields: {
          $type: "hostedFile",
          fileId: content.fileId as Json,
          ...optional("mediaType", content.mediaType),
          ...optional("name", content.name),
        },
        used: ["fileId", "mediaType", "name"],
      };
    case "usage": {
      const details: JsonObject = {};
      for (const [dotnetName, skeinName] of DOTNET_USAGE)
        Object.assign(details, optional(dotnetName, content[skeinName]));
      const extra =
        isJsonObject(content.mafDotnet) && isJsonObject(content.mafDotnet.details)
          ? content.mafDotnet.details
          : {};
      return {
        fields: { $type: "usage", details: { ...details, ...extra } },
        used: [...DOTNET_USAGE.values(), "mafDotnet"],
      };
    }
    case "error":
      return {
        fields: {
          $type: "error",
          message: content.message as Json,
          ...optional("errorCode", content.code),
          ...optional("details", bag.error_details),
        },
        used: ["message", "code"],
        usedBag: ["error_details"],
      };
    case "function_call":
      if (!isJsonObject(content.arguments)) return undefined;
      return {
        fields: {
          $type: "functionCall",
          callId: content.callId as Json,
          name: content.name as Json,
          arguments: content.arguments,
          ...(bag.informational_only === true ? { informationalOnly: true } : {}),
        },
        used: ["callId", "name", "arguments"],
        usedBag: ["informational_only"],
      };
    case "function_result":
      return {
        fields: { $type: "functionResult", callId: content.callId as Json, result: content.result as Json },
        used: ["callId", "result"],
      };
    case "maf.hosted_vector_store":
      if (typeof content.vector_store_id !== "string") return undefined;
      return {
        fields: { $type: "hostedVectorStore", vectorStoreId: content.vector_store_id },
        used: ["vector_store_id", "additional_properties"],
        usedBag: [],
      };
    default:
      if (!type.startsWith("maf.dotnet.")) return undefined;
      return {
        fields: {
          $type: type.slice("maf.dotnet.".length),
          ...withoutKeys(content, ["type", "additionalProperties"]),
        },
        used: Object.keys(content).filter((key) => key !== "type"),
      };
  }
}
