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
import { MESSAGE_KEYS, SKEIN_KEY } from "./python-content-fields.js";
import { checkPythonContent, pythonContentToSkein } from "./python-content-read.js";
import { skeinContentToPython } from "./python-content-write.js";

/**
 * A MAF Python `Message.to_dict()` as a skein message, checked as `Message.from_dict` checks it (unknown keys,
 * a `type` other than `message`, no role) and with skein's own rule on roles (system, user, assistant, tool).
 */
export function pythonMessageToSkein(value: Json, place: MessagePlace, stamps: MessageStamps): JsonObject {
  const { document, path } = place;
  if (!isJsonObject(value)) throw new MafDocumentError(document, path, "a message is a JSON object");
  for (const key of Object.keys(value)) {
    if (!MESSAGE_KEYS.has(key))
      throw new MafDocumentError(
        document,
        [...path, key],
        `unknown message key ${JSON.stringify(key)}: MAF's reader refuses it (Message.__init__() got an unexpected keyword argument '${key}')`,
      );
  }
  if (value.type !== undefined && value.type !== "message")
    throw new MafDocumentError(
      document,
      [...path, "type"],
      `Type mismatch: expected 'message', got ${JSON.stringify(value.type)}`,
    );
  const role = value.role;
  if (role === undefined || role === null)
    throw new MafDocumentError(
      document,
      [...path, "role"],
      "a message needs a role (MAF's reader refuses one without)",
    );
  checkRole(role, place);
  const contents = contentList(value.contents, place);
  contents.forEach((content, index) => {
    checkPythonContent(content, { document, path: [...path, "contents", index] });
  });
  checkStringFields(value, ["author_name", "message_id"], place);
  const properties = propertiesField(value, "additional_properties", place);
  const own = isJsonObject(properties[SKEIN_KEY]) ? (properties[SKEIN_KEY] as JsonObject) : {};
  const metadata = withoutKeys(properties, [SKEIN_KEY]);
  const { createdAt, maf: carried, ...extra } = own;
  const { maf: generated, ...stamped } = readStamps(
    {
      id: (value.message_id as string | null | undefined) ?? undefined,
      createdAt: typeof createdAt === "string" ? createdAt : undefined,
    },
    stamps,
  );
  // In the key order skein writes messages in, so a message reads the same after a store's round trip.
  return {
    id: stamped.id as Json,
    role,
    createdAt: stamped.createdAt as Json,
    ...(value.author_name == null ? {} : { authorName: value.author_name }),
    contents: contents.map((content) => pythonContentToSkein(content)),
    ...(isEmptyObject(metadata) ? {} : { metadata }),
    ...extra,
    ...marker(generated, carried),
  };
}

/** Where `type` goes: first as `Message.to_dict()` writes it (history files, Redis), last inside session state. */
export type TypeTagPlace = "first" | "last";

/** A skein message as MAF Python's `Message.to_dict()`; what MAF has no field for goes to `additional_properties.skein`. */
export function skeinMessageToPython(
  message: JsonObject,
  place: MessagePlace,
  typeTag: TypeTagPlace,
): JsonObject {
  const { id: _id, createdAt: _createdAt, role, authorName, contents, metadata, maf, ...extra } = message;
  const written = writeStamps(message);
  // What else skein noted on the message (the time as .NET wrote it) travels with it.
  const { generated: _generated, ...noted } = isJsonObject(maf) ? maf : {};
  const own: JsonObject = {
    ...(written.createdAt === undefined ? {} : { createdAt: written.createdAt }),
    ...extra,
    ...(isEmptyObject(noted) ? {} : { maf: noted }),
  };
  const properties: JsonObject = { ...(isJsonObject(metadata) ? metadata : {}) };
  // An empty `metadata` MAF cannot tell from none: said in skein's part, so it comes back.
  if (isJsonObject(metadata) && isEmptyObject(metadata)) own.metadata = {};
  if (!isEmptyObject(own)) properties[SKEIN_KEY] = own;
  const body: JsonObject = {
    role: role as Json,
    contents: (contents as JsonObject[]).map((content, index) =>
      skeinContentToPython(content, { document: place.document, path: [...place.path, "contents", index] }),
    ),
    ...(authorName === undefined ? {} : { author_name: authorName }),
    ...(written.id === undefined ? {} : { message_id: written.id }),
    additional_properties: properties,
  };
  return typeTag === "first" ? { type: "message", ...body } : { ...body, type: "message" };
}

/** The message's `maf` notes: what skein made up on this import, and what an earlier one noted. */
function marker(generated: Json | undefined, carried: Json | undefined): JsonObject {
  const notes = { ...(isJsonObject(carried) ? carried : {}), ...(isJsonObject(generated) ? generated : {}) };
  return isEmptyObject(notes) ? {} : { maf: notes };
}
