import { MafDocumentError, MafFormatNotSupportedError } from "./errors.js";
import type { Json } from "./json-value.js";

/** A MAF document as given: parsed JSON, JSON text, or the bytes of a file. */
export type MafInput = unknown;

/**
 * The JSON value of a document given as text or bytes (parsed JSON passes through). MAF's msgpack files are
 * recognised and refused with `MafFormatNotSupportedError`: reading them would need a msgpack decoder.
 */
export function documentValue(input: MafInput, document: string): Json {
  if (input instanceof Uint8Array) {
    if (looksLikeMsgpack(input)) throw new MafFormatNotSupportedError("msgpack");
    return parseText(new TextDecoder("utf-8", { fatal: false }).decode(input), document);
  }
  if (typeof input === "string") return parseText(input, document);
  return input as Json;
}

/** The bytes of a document given as bytes, for formats that are read line by line. */
export function documentText(input: Uint8Array | string): string {
  if (typeof input === "string") return input;
  if (looksLikeMsgpack(input)) throw new MafFormatNotSupportedError("msgpack");
  return new TextDecoder("utf-8").decode(input);
}

function parseText(text: string, document: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw new MafDocumentError(document, [], "is not JSON", { cause: error });
  }
}

/**
 * MAF's msgpack: a session file is one msgpack map (0x80–0x8f, 0xde, 0xdf); a history file is records of a
 * 4-byte big-endian length and one map each. JSON text starts with neither.
 */
function looksLikeMsgpack(bytes: Uint8Array): boolean {
  const isMap = (byte: number | undefined) =>
    byte !== undefined && ((byte >= 0x80 && byte <= 0x8f) || byte === 0xde || byte === 0xdf);
  if (isMap(bytes[0])) return true;
  if (bytes.length < 5) return false;
  const length = ((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) | ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0);
  return length > 0 && length <= bytes.length - 4 && isMap(bytes[4]);
}
