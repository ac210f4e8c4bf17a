import { type JsonPath, MafDocumentError } from "./errors.js";
import { isJsonObject, type JsonObject } from "./json-value.js";

/** Where a message sits: the document's name for errors, and its JSON path. */
export interface MessagePlace {
  document: string;
  path: JsonPath;
}

/** Checks that each named field of a message, when present and not null, is a string. */
export function checkStringFields(value: JsonObject, keys: readonly string[], place: MessagePlace): void {
  for (const key of keys) {
    if (value[key] != null && typeof value[key] !== "string")
      throw new MafDocumentError(place.document, [...place.path, key], `${key} is a string`);
  }
}

/** A message's additional properties (Python's `additional_properties`, .NET's `additionalProperties`): an object. */
export function propertiesField(value: JsonObject, key: string, place: MessagePlace): JsonObject {
  const properties = value[key] ?? {};
  if (!isJsonObject(properties))
    throw new MafDocumentError(place.document, [...place.path, key], `${key} is an object`);
  return properties;
}
