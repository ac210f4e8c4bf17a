import { checkDotnetContent, dotnetContentToSkein } from "./dotnet-content-read.js";
import { skeinContentToDotnet } from "./dotnet-content-write.js";
import { MafDocumentError } from "./errors.js";
import {
  checkRole,
  checkStringFields,
  contentList,
  type MessagePlace,
  propertiesField,
} from "./field-checks.js";
import { isEmptyObject, isJsonObject, type Json, type JsonObject, withoutKeys } from "./json-value.js";
import { type MessageStamps, readStamps, writeStamps } from "./message-stamps.js";
import { SKEIN_KEY } from "./python-content-fields.js";

/**
 * A Microsoft.Extensions.AI `ChatMessage` (ChatMessage.cs at dotnet/extensions 5862342c: `authorName`,
 * `createdAt`, `role`, `contents`, `messageId`, `additionalProperties`) as a skein message. As .NET reads it: no
 * role is `user`, no contents is none, other properties are ignored. Contents skein wrote into
 * `additionalProperties.skein.contents` (those .NET has no type for) go back to their places.
 */
export function dotnetMessageToSkein(value: Json, place: MessagePlace, stamps: MessageStamps): JsonObject {
  const { document, path } = place;
  if (!isJsonObject(value)) throw new MafDocumentError(document, path, "a message is a JSON object");
  const role = value.role ?? "user";
  checkRole(role, place);
  const contents = contentList(value.contents, place);
  const checked = contents.map((content, index) =>
    checkDotnetContent(content, { document, path: [...path, "contents", index] }),
  );
  checkStringFields(value, ["authorName", "messageId", "createdAt"], place);
  const properties = propertiesField(value, "additionalProperties", place);
  const own = isJsonObject(properties[SKEIN_KEY]) ? (properties[SKEIN_KEY] as JsonObject) : {};
  const { contents: held, createdAt: _pythonTime, ...extra } = own;
  const skeinContents = checked.map((content) => dotnetContentToSkein(content));
  for (const entry of Array.isArray(held) ? held : []) {
    if (isJsonObject(entry) && typeof entry.index === "number" && isJsonObject(entry.content))
      skeinContents.splice(entry.index, 0, entry.content);
  }
  const metadata = withoutKeys(properties, [SKEIN_KEY]);
  const time = dotnetTime(value.createdAt as string | null | undefined, document, [...path, "createdAt"]);
  const { maf: generated, ...stamped } = readStamps(
    { id: (value.messageId as string | null | undefined) ?? undefined, createdAt: time?.iso },
    stamps,
  );
  const marker = {
    ...(isJsonObject(generated) ? generated : {}),
    ...(time && time.iso !== time.given ? { createdAt: time.given } : {}),
  };
  return {
    id: stamped.id as Json,
    role,
    createdAt: stamped.createdAt as Json,
    ...(value.authorName == null ? {} : { authorName: value.authorName }),
    contents: skeinContents,
    ...(isEmptyObject(metadata) ? {} : { metadata }),
    ...extra,
    ...(isEmptyObject(marker) ? {} : { maf: marker }),
  };
}

/** A .NET `DateTimeOffset` as skein's ISO-8601 UTC time, and the text .NET wrote (kept when they differ). */
function dotnetTime(given: string | null | undefined, document: string, path: Array<string | number>) {
  if (given == null) return undefined;
  const time = Date.parse(given);
  if (Number.isNaN(time))
    throw new MafDocumentError(document, path, `${JSON.stringify(given)} is not a date and time`);
  return { given, iso: new Date(time).toISOString() };
}

/**
 * A skein message as a .NET `ChatMessage`, properties in the order the class declares them. Contents no
 * `AIContent` type stands for go to `additionalProperties.skein.contents` with their places, so .NET keeps
 * them (and never sends them to a model) and a later import puts them back.
 */
export function skeinMessageToDotnet(message: JsonObject): JsonObject {
  const { id: _id, createdAt: _createdAt, role, authorName, contents, metadata, maf, ...extra } = message;
  const written = writeStamps(message);
  const givenTime =
    isJsonObject(maf) && typeof maf.createdAt === "string" ? maf.createdAt : written.createdAt;
  const dotnetContents: JsonObject[] = [];
  const held: JsonObject[] = [];
  (contents as JsonObject[]).forEach((content, index) => {
    const dotnet = skeinContentToDotnet(content);
    if (dotnet) dotnetContents.push(dotnet);
    else held.push({ index, content });
  });
  const own: JsonObject = { ...extra, ...(held.length === 0 ? {} : { contents: held }) };
  const properties: JsonObject = { ...(isJsonObject(metadata) ? metadata : {}) };
  // An empty `metadata` MAF cannot tell from none: said in skein's part, so it comes back.
  if (isJsonObject(metadata) && isEmptyObject(metadata)) own.metadata = {};
  if (!isEmptyObject(own)) properties[SKEIN_KEY] = own;
  return {
    ...(authorName === undefined ? {} : { authorName }),
    ...(givenTime === undefined ? {} : { createdAt: givenTime }),
    role: role as Json,
    contents: dotnetContents,
    ...(written.id === undefined ? {} : { messageId: written.id }),
    ...(isEmptyObject(properties) ? {} : { additionalProperties: properties }),
  };
}
