import { AI_MAJOR, AI7_MODEL_PARTS } from "./ai-major.js";
import { MessageMappingError } from "./errors.js";
import { isRecord } from "./namespace.js";

const SHARED_PARTS = new Set([
  "text",
  "reasoning",
  "image",
  "file",
  "tool-call",
  "tool-result",
  "tool-approval-request",
  "tool-approval-response",
]);

const NEEDS: Record<string, string[]> = {
  text: ["text"],
  reasoning: ["text"],
  "tool-call": ["toolCallId", "toolName"],
  "tool-result": ["toolCallId", "toolName"],
  "tool-approval-request": ["approvalId", "toolCallId"],
  "tool-approval-response": ["approvalId"],
  custom: ["kind"],
  "reasoning-file": ["mediaType"],
};

/** Tool output content items of one major only: 6's `media` became 7's `file` (with tagged data) and references. */
const OUTPUT_ITEMS_OF: Record<6 | 7, Set<string>> = {
  6: new Set(["media"]),
  7: new Set(["file", "file-reference", "image-file-reference"]),
};

/**
 * Refuses a model part the installed `ai` major does not know (AI SDK 7's `custom` and `reasoning-file` under
 * ai 6, a tool output item of the other major) or that lacks a field its type needs.
 */
export function checkModelPart(part: Record<string, unknown>, path: Array<string | number>): void {
  const type = part.type as string;
  if (!SHARED_PARTS.has(type) && !AI7_MODEL_PARTS.has(type)) {
    throw new MessageMappingError(
      `a part of type ${JSON.stringify(type)} is no AI SDK ${AI_MAJOR} model part`,
      path,
    );
  }
  if (AI7_MODEL_PARTS.has(type) && AI_MAJOR === 6) {
    throw new MessageMappingError(
      `a ${JSON.stringify(type)} part is an AI SDK 7 model part, which the installed ai 6 has no type for; install ai 7 or leave the part out`,
      path,
    );
  }
  for (const field of NEEDS[type] ?? []) {
    if (typeof part[field] !== "string") {
      throw new MessageMappingError(`a ${JSON.stringify(type)} part needs a string ${field}`, path);
    }
  }
  if (type === "reasoning-file" && part.data === undefined) {
    throw new MessageMappingError('a "reasoning-file" part needs its data', path);
  }
  if (type === "tool-result") checkOutput(part.output, [...path, "output"]);
}

function checkOutput(output: unknown, path: Array<string | number>): void {
  if (!isRecord(output) || typeof output.type !== "string") {
    throw new MessageMappingError('a "tool-result" part needs an output with a string type', path);
  }
  if (output.type !== "content") return;
  if (!Array.isArray(output.value)) {
    throw new MessageMappingError("a content output needs an array of items as its value", [
      ...path,
      "value",
    ]);
  }
  const otherMajor = AI_MAJOR === 6 ? 7 : 6;
  output.value.forEach((item: unknown, index) => {
    const itemPath = [...path, "value", index];
    if (!isRecord(item) || typeof item.type !== "string") {
      throw new MessageMappingError("a content output item must be an object with a string type", itemPath);
    }
    if (OUTPUT_ITEMS_OF[otherMajor].has(item.type)) {
      throw new MessageMappingError(
        `a ${JSON.stringify(item.type)} content output item is AI SDK ${otherMajor}'s; the installed ai ${AI_MAJOR} has ${AI_MAJOR === 7 ? '"file" with data { type: "data", data } instead of "media"' : '"media" (data, mediaType), "file-url" and "file-id" instead'}`,
        itemPath,
      );
    }
  });
}
