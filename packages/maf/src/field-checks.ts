import { ROLES } from "@skein/thread-core/driver";
import { type JsonPath, MafDocumentError } from "./errors.js";
import { isJsonObject, type Json, type JsonObject } from "./json-value.js";

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

const SKEIN_ROLES: ReadonlySet<string> = new Set(ROLES);

/** A message's role, refused unless skein has it. */
export function checkRole(role: Json, place: MessagePlace): string {
  if (typeof role !== "string" || !SKEIN_ROLES.has(role))
    throw new MafDocumentError(
      place.document,
      [...place.path, "role"],
      `role ${JSON.stringify(role)} has no skein equivalent (system, user, assistant, tool)`,
    );
  return role;
}

/** A message's contents: absent is none, anything but a list is refused. */
export function contentList(contents: Json | undefined, place: MessagePlace): Json[] {
  const list = contents ?? [];
  if (!Array.isArray(list))
    throw new MafDocumentError(place.document, [...place.path, "contents"], "contents is a list");
  return list;
}
