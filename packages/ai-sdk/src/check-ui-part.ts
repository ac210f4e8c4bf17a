import { AI_MAJOR, AI7_UI_PARTS } from "./ai-major.js";
import { MessageMappingError } from "./errors.js";
import { isRecord, SKEIN_DATA_PART } from "./namespace.js";

/** UI part types both majors validate (beside `data-*`, `tool-*` and this package's `data-skein`). */
const SHARED_PARTS = new Set([
  "text",
  "reasoning",
  "file",
  "source-url",
  "source-document",
  "step-start",
  "dynamic-tool",
]);

/** The string fields each UI part type needs, so a malformed part is refused here, not a TypeError later. */
const NEEDS: Record<string, string[]> = {
  text: ["text"],
  reasoning: ["text"],
  file: ["mediaType", "url"],
  "dynamic-tool": ["toolCallId", "toolName"],
  "source-url": ["sourceId", "url"],
  "source-document": ["sourceId", "mediaType", "title"],
  custom: ["kind"],
  "reasoning-file": ["mediaType", "url"],
  "steering-message": ["id"],
};

/**
 * Refuses a UI part the installed `ai` major does not know (AI SDK 7's `custom`, `reasoning-file`,
 * `steering-message` under ai 6; a type neither major has) or that lacks a field its type needs.
 */
export function checkUIPart(part: Record<string, unknown>, path: Array<string | number>): void {
  const type = part.type as string;
  const known =
    type === SKEIN_DATA_PART ||
    type.startsWith("data-") ||
    type.startsWith("tool-") ||
    SHARED_PARTS.has(type);
  if (!known && !AI7_UI_PARTS.has(type)) {
    throw new MessageMappingError(
      `a part of type ${JSON.stringify(type)} is no AI SDK ${AI_MAJOR} UI part (known: text, reasoning, file, source-url, source-document, step-start, data-<name>, tool-<name>, dynamic-tool${AI_MAJOR === 7 ? ", custom, reasoning-file, steering-message" : ""})`,
      path,
    );
  }
  if (AI7_UI_PARTS.has(type) && AI_MAJOR === 6) {
    throw new MessageMappingError(
      `a ${JSON.stringify(type)} part is an AI SDK 7 part, which the installed ai 6 has no type for and its validateUIMessages refuses; install ai 7 or leave the part out`,
      path,
    );
  }
  const needs = type.startsWith("tool-") ? ["toolCallId"] : (NEEDS[type] ?? []);
  for (const field of needs) {
    if (typeof part[field] !== "string") {
      throw new MessageMappingError(`a ${JSON.stringify(type)} part needs a string ${field}`, path);
    }
  }
  if (type === "steering-message") checkSteeringParts(part.parts, [...path, "parts"]);
}

/** A steering message holds text and file parts only, as AI SDK 7 validates them. */
function checkSteeringParts(parts: unknown, path: Array<string | number>): void {
  if (!Array.isArray(parts)) {
    throw new MessageMappingError('a "steering-message" part needs an array of parts (text or file)', path);
  }
  parts.forEach((part: unknown, index) => {
    const type = isRecord(part) ? part.type : undefined;
    if (type !== "text" && type !== "file") {
      throw new MessageMappingError(
        `a "steering-message" part holds text and file parts, not ${JSON.stringify(type ?? part)}`,
        [...path, index],
      );
    }
    for (const field of NEEDS[type] ?? []) {
      if (typeof (part as Record<string, unknown>)[field] !== "string") {
        throw new MessageMappingError(`a ${JSON.stringify(type)} part needs a string ${field}`, [
          ...path,
          index,
        ]);
      }
    }
  });
}
