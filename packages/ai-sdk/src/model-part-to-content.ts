import type { Content } from "@skein/thread-core";
import type { ModelMessage } from "ai";
import { binaryToContent } from "./binary-content.js";
import { MessageMappingError } from "./errors.js";
import { callArguments, isRecord, TYPE_PREFIX, toJson, withExtra } from "./namespace.js";
import { DENIED_RESULT } from "./ui-part-to-contents.js";

type ModelPart = Exclude<ModelMessage["content"], string>[number];

/** One model message part as a skein content: text, reasoning, files, tool calls and results as skein's own types. */
export function modelPartToContent(part: ModelPart, path: Array<string | number>): Content {
  if (!isRecord(part as unknown) || typeof part.type !== "string") {
    throw new MessageMappingError("a part must be an object with a string type", path);
  }
  switch (part.type) {
    case "text":
    case "reasoning": {
      const { type, text, ...rest } = part;
      return withExtra({ type, text }, rest);
    }
    case "image": {
      const { type, image, mediaType, ...rest } = part;
      const { content, keep } = binaryToContent(image, mediaType, "image/*", [...path, "image"]);
      return withExtra(content, { ...rest, ...keep, type });
    }
    case "file": {
      const { type: _type, data, mediaType, filename, ...rest } = part;
      const { content, keep } = binaryToContent(data, mediaType, "application/octet-stream", [
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
      const result = kind === "execution-denied" ? (outputRest.reason ?? DENIED_RESULT) : toJson(value);
      return withExtra(
        { type: "function_result", callId: toolCallId, result, ...(isError ? { isError } : {}) },
        { ...rest, toolName, output: { ...outputKept, type: kind } },
      );
    }
    default:
      // tool-approval-request and tool-approval-response have no skein type.
      return toJson({ ...part, type: `${TYPE_PREFIX}${part.type}` }) as Content;
  }
}
