import type { Content } from "@skein/thread-core";
import type { FunctionCallContent, FunctionResultContent } from "@skein/thread-core/driver";
import type { ModelMessage } from "ai";
import { AI_MAJOR } from "./ai-major.js";
import { contentToFileData } from "./file-data.js";
import { callInput, contentExtra, EXTRA, type Json, TYPE_PREFIX } from "./namespace.js";
import { reviveValue } from "./revive.js";
import { outputItemsForInstalledMajor } from "./tool-output.js";

type ModelPart = Exclude<ModelMessage["content"], string>[number];

/** The tool names of calls seen so far, for results other writers stored without one. */
export type CallNames = Map<string, string>;

/** Model parts kept as `ai-sdk.<type>` contents: 7's `custom` and `reasoning-file` only where 7 is installed. */
const MODEL_ONLY_PARTS = new Set([
  "tool-approval-request",
  "tool-approval-response",
  ...(AI_MAJOR === 7 ? ["custom", "reasoning-file"] : []),
]);

/**
 * A skein content as a model part, or undefined for a content a model does not take (usage, error, a file id,
 * another package's content).
 */
export function contentToModelPart(content: Content, names: CallNames): ModelPart | undefined {
  const extra = contentExtra(content);
  switch (content.type) {
    case "text":
    case "reasoning":
      return { ...extra, type: content.type, text: content.text as string } as ModelPart;
    case "data":
    case "uri":
    case "file": {
      const value = contentToFileData(content, extra);
      // A file id another writer stored names no provider: a model cannot take it.
      if (value === undefined) return undefined;
      const {
        type,
        encoding: _encoding,
        noMediaType,
        fileData: _fileData,
        originalUrl: _originalUrl,
        reference: _reference,
        ...rest
      } = extra ?? {};
      const mediaType = noMediaType === true ? undefined : (content.mediaType as string | undefined);
      if (type === "image") {
        return {
          ...rest,
          type: "image",
          image: value,
          ...(mediaType === undefined ? {} : { mediaType }),
        } as ModelPart;
      }
      const name = content.name as string | undefined;
      return {
        ...rest,
        type: "file",
        data: value,
        mediaType: mediaType ?? "application/octet-stream",
        ...(name === undefined ? {} : { filename: name }),
      } as ModelPart;
    }
    case "function_call": {
      const call = content as FunctionCallContent;
      const { input: _input, noInput: _noInput, ...rest } = extra ?? {};
      names.set(call.callId, call.name);
      return {
        ...rest,
        type: "tool-call",
        toolCallId: call.callId,
        toolName: call.name,
        input: callInput(call, extra),
      } as ModelPart;
    }
    case "function_result":
      return toolResult(content as FunctionResultContent, extra, names);
    default: {
      const type = content.type.startsWith(TYPE_PREFIX) ? content.type.slice(TYPE_PREFIX.length) : "";
      if (!MODEL_ONLY_PARTS.has(type)) return undefined;
      const { type: _type, [EXTRA]: _extra, ...rest } = content as Json;
      return { ...(reviveValue(rest, extra?.revive) as object), type } as ModelPart;
    }
  }
}

function toolResult(content: FunctionResultContent, extra: Json | undefined, names: CallNames): ModelPart {
  const { toolName, output, revive, ...rest } = extra ?? {};
  const kept = output as { type: string } | undefined;
  const kind = kept?.type ?? foreignOutputType(content);
  const value = reviveValue(content.result, revive);
  return {
    ...rest,
    type: "tool-result",
    toolCallId: content.callId,
    toolName: typeof toolName === "string" ? toolName : (names.get(content.callId) ?? "unknown"),
    output:
      kind === "execution-denied"
        ? { ...kept, type: kind }
        : { ...kept, type: kind, value: kind === "content" ? outputItemsForInstalledMajor(value) : value },
  } as ModelPart;
}

/** The output type of a result another writer stored: text for a string, JSON otherwise, as an error when it says so. */
function foreignOutputType(content: FunctionResultContent): string {
  const kind = typeof content.result === "string" ? "text" : "json";
  return content.isError ? `error-${kind}` : kind;
}
