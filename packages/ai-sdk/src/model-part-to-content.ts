import type { Content } from "@skein/thread-core";
import type { ModelMessage } from "ai";
import { checkModelPart } from "./check-model-part.js";
import { MessageMappingError } from "./errors.js";
import { fileDataToContent } from "./file-data.js";
import { callArguments, isRecord, TYPE_PREFIX, withExtra } from "./namespace.js";
import { reviveKeep, storeValue } from "./revive.js";
import { DENIED_RESULT } from "./ui-part-to-contents.js";

type ModelPart = Exclude<ModelMessage["content"], string>[number];

/**
 * One model message part as a skein content: text, reasoning, files, tool calls and results as skein's own
 * types, a provider file reference as `file`, the rest (approvals, 7's `custom` and `reasoning-file`) as
 * `ai-sdk.<type>` contents.
 */
export function modelPartToContent(part: ModelPart, path: Array<string | number>): Content {
  if (!isRecord(part as unknown) || typeof part.type !== "string") {
    throw new MessageMappingError("a part must be an object with a string type", path);
  }
  checkModelPart(part as Record<string, unknown>, path);
  switch (part.type) {
    case "text":
    case "reasoning": {
      const { type, text, ...rest } = part;
      return withExtra({ type, text }, rest);
    }
    case "image": {
      const { type, image, mediaType, ...rest } = part;
      const { content, keep } = fileDataToContent(image, mediaType, "image/*", [...path, "image"]);
      return withExtra(content, { ...rest, ...keep, type });
    }
    case "file": {
      const { type: _type, data, mediaType, filename, ...rest } = part;
      const { content, keep } = fileDataToContent(data, mediaType, "application/octet-stream", [
        ...path,
        "data",
      ]);
      return withExtra(
        { ...content, ...(filename === undefined ? {} : { name: filename }) },
        { ...rest, ...keep },
      );
    }
    case "tool-call": {
      const { type: _type, toolCallId, toolName, input, ...rest } = part;
      const call = callArguments(input);
      return withExtra(
        { type: "function_call", callId: toolCallId, name: toolName, arguments: call.arguments },
        { ...rest, ...call.keep },
      );
    }
    case "tool-result": {
      const { type: _type, toolCallId, toolName, output, ...rest } = part;
      const { type: kind, ...outputRest } = output as { type: string; value?: unknown; reason?: string };
      const { value, ...outputKept } = outputRest;
      const isError = kind === "error-text" || kind === "error-json" || kind === "execution-denied";
      // A content output may hold URL objects and bytes (7's file data): stored as text, marked to come back.
      const stored = storeValue(value);
      const result = kind === "execution-denied" ? (outputRest.reason ?? DENIED_RESULT) : stored.json;
      return withExtra(
        { type: "function_result", callId: toolCallId, result, ...(isError ? { isError } : {}) },
        { ...rest, toolName, output: { ...outputKept, type: kind }, ...reviveKeep(stored.revive) },
      );
    }
    default: {
      // tool-approval-request, tool-approval-response and 7's custom and reasoning-file (whose data may be a
      // URL object or bytes) have no skein type.
      const { type, ...rest } = part as { type: string };
      const stored = storeValue(rest);
      return withExtra(
        { ...(stored.json as object), type: `${TYPE_PREFIX}${type}` },
        reviveKeep(stored.revive),
      );
    }
  }
}
