import { MafDocumentError } from "./errors.js";
import { isJsonObject, type Json, type JsonObject } from "./json-value.js";
import type { MessageStamps } from "./message-stamps.js";
import { pythonJsonDumps } from "./python-json.js";
import { pythonMessageToSkein, skeinMessageToPython } from "./python-message.js";

/** Messages read from a MAF history, with where each came from. */
export interface ReadHistory {
  messages: JsonObject[];
  paths: Array<Array<string | number>>;
  documents: string[];
}

/**
 * Reads MAF Python's `FileHistoryProvider` JSONL (one `Message.to_dict()` per line, blank lines skipped) or
 * the strings of a `RedisHistoryProvider` list (`LRANGE key 0 -1`). Every line is checked before anything is
 * returned, so a bad line leaves nothing half read.
 */
export function readPythonHistory(input: string | readonly string[], stamps: MessageStamps): ReadHistory {
  const lines = typeof input === "string" ? input.split("\n") : input;
  const label = typeof input === "string" ? "MAF history line" : "MAF Redis history item";
  const read: ReadHistory = { messages: [], paths: [], documents: [] };
  lines.forEach((line, index) => {
    const document = `${label} ${typeof input === "string" ? index + 1 : index}`;
    if (typeof line !== "string") throw new MafDocumentError(document, [], "a history item is a JSON string");
    if (typeof input === "string" && line.trim() === "") return;
    let value: Json;
    try {
      value = JSON.parse(line) as Json;
    } catch (error) {
      throw new MafDocumentError(document, [], "is not JSON", { cause: error });
    }
    if (!isJsonObject(value))
      throw new MafDocumentError(
        document,
        [],
        "did not deserialize to a mapping (a message is a JSON object)",
      );
    read.messages.push(pythonMessageToSkein(value, { document, path: [] }, stamps));
    read.paths.push([]);
    read.documents.push(document);
  });
  return read;
}

/** The two forms MAF Python keeps a history in. */
export type PythonHistoryFormat = "jsonl" | "redis";

/**
 * Messages as MAF Python writes its history: JSONL as `FileHistoryProvider` does (compact, UTF-8, a newline
 * after each line), or the strings `RedisHistoryProvider` pushes (`json.dumps(message.to_dict())`).
 */
export function writePythonHistory(
  messages: readonly JsonObject[],
  format: PythonHistoryFormat,
): string | string[] {
  const written = messages.map((message, index) =>
    skeinMessageToPython(message, { document: "MAF Python history", path: [index] }, "first"),
  );
  if (format === "redis") return written.map((message) => pythonJsonDumps(message));
  return written.map((message) => `${JSON.stringify(message)}\n`).join("");
}

/**
 * The session id a `FileHistoryProvider` file stands for, from its name: `<id>.jsonl`, or for an id unsafe in
 * a file name `~session-<urlsafe base64 without padding>.jsonl`. Undefined for `~session-sha256-<hex>`, the
 * name MAF gives an id too long to encode: only a hash of it is left.
 */
export function sessionIdFromHistoryFileName(fileName: string): string | undefined {
  const stem = fileName.replace(/^.*[\\/]/, "").replace(/\.jsonl$/, "");
  if (!stem.startsWith(ENCODED_PREFIX)) return stem;
  if (stem.startsWith(`${ENCODED_PREFIX}sha256-`)) return undefined;
  return Buffer.from(stem.slice(ENCODED_PREFIX.length), "base64url").toString("utf8");
}

/** MAF's prefix for a session id it encodes in a file name (`_ENCODED_SESSION_PREFIX`). */
const ENCODED_PREFIX = "~session-";
