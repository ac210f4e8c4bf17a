import type { Content } from "@skein/thread-core";
import type { UIMessage, UIMessageChunk } from "ai";
import { isRecord, TYPE_PREFIX, toJson } from "./namespace.js";
import { uiPartsToContents } from "./ui-part-to-contents.js";

type Part = UIMessage["parts"][number];
type Kind = "text" | "reasoning";

/**
 * Turns the chunks of a UI message stream into the deltas a streamed skein reply holds, in order: text and
 * reasoning as plain `text`/`reasoning` deltas (which join into one content each), a tool call as its
 * `function_call` once its input is whole and its `function_result` once it has an outcome, a step as
 * `ai-sdk.step-start`, sources and data parts as the `ai-sdk.<type>` contents `fromUIMessages` makes of them, files
 * as `data`/`uri`. Where the deltas alone would lose what the client sees (a text part's provider metadata, where
 * one text part ends and the next begins, a reasoning part's id), an `ai-sdk.text-start`/`-end` or
 * `ai-sdk.reasoning-start`/`-end` marker keeps it, so `resumeChat` can give
 * a client the same message the original stream gave (see `ContentChunks`).
 */
export class ChunkDeltas {
  /** The kind of the last plain text or reasoning delta, while no other delta came after it. */
  #lastKind: Kind | undefined;

  deltas(chunk: UIMessageChunk): Content[] {
    const deltas = this.#map(chunk);
    if (deltas.length > 0 && !(chunk.type === "text-delta" || chunk.type === "reasoning-delta")) {
      this.#lastKind = undefined;
    }
    return deltas;
  }

  #map(chunk: UIMessageChunk): Content[] {
    switch (chunk.type) {
      case "text-start":
      case "reasoning-start": {
        const kind = chunk.type === "text-start" ? "text" : "reasoning";
        // A reasoning part keeps its id; a part right after another of its kind needs a marker, or the two
        // would join into one.
        if (kind === "reasoning") return [marker("reasoning-start", chunk.providerMetadata, chunk.id)];
        if (chunk.providerMetadata === undefined && this.#lastKind !== kind) return [];
        this.#lastKind = undefined;
        return [marker("text-start", chunk.providerMetadata)];
      }
      case "text-delta":
      case "reasoning-delta": {
        if (chunk.delta.length === 0) return [];
        const kind = chunk.type === "text-delta" ? "text" : "reasoning";
        this.#lastKind = kind;
        return [{ type: kind, text: chunk.delta }];
      }
      case "text-end":
      case "reasoning-end":
        if (chunk.providerMetadata === undefined) return [];
        return [marker(chunk.type, chunk.providerMetadata)];
      case "start-step":
        return [{ type: `${TYPE_PREFIX}step-start` }];
      case "tool-input-available":
        return [callContent(chunk)];
      case "tool-output-available":
        // A preliminary output is replaced by the final one: only that is the call's result.
        if (chunk.preliminary === true) return [];
        return [{ type: "function_result", callId: chunk.toolCallId, result: toJson(chunk.output) }];
      case "tool-output-error":
        return [
          { type: "function_result", callId: chunk.toolCallId, result: chunk.errorText, isError: true },
        ];
      case "source-url":
      case "source-document": {
        const { type, ...rest } = chunk;
        return [toJson({ type: `${TYPE_PREFIX}${type}`, ...rest }) as Content];
      }
      case "file": {
        const { type: _type, ...rest } = chunk;
        return uiPartsToContents([{ type: "file", ...rest } as Part], ["chunk"]);
      }
      default:
        return dataDeltas(chunk);
    }
  }
}

/** A `data-*` chunk the client keeps (not `transient`) as the content `fromUIMessages` makes of its part. */
function dataDeltas(chunk: UIMessageChunk): Content[] {
  if (!chunk.type.startsWith("data-") || !isRecord(chunk)) return [];
  const { type, transient, ...rest } = chunk as { type: string; transient?: boolean };
  if (transient === true) return [];
  return [toJson({ type: `${TYPE_PREFIX}${type}`, ...rest }) as Content];
}

function marker(type: string, providerMetadata: unknown, id?: string): Content {
  return toJson({
    type: `${TYPE_PREFIX}${type}`,
    ...(id === undefined ? {} : { id }),
    ...(providerMetadata === undefined ? {} : { providerMetadata }),
  }) as Content;
}

/** The `function_call` of a tool call whose input is whole, as `fromUIMessages` writes its tool part. */
function callContent(chunk: Extract<UIMessageChunk, { type: "tool-input-available" }>): Content {
  const part = {
    type: chunk.dynamic === true ? "dynamic-tool" : `tool-${chunk.toolName}`,
    ...(chunk.dynamic === true ? { toolName: chunk.toolName } : {}),
    toolCallId: chunk.toolCallId,
    state: "input-available",
    input: chunk.input,
    ...(chunk.providerExecuted === undefined ? {} : { providerExecuted: chunk.providerExecuted }),
    ...(chunk.providerMetadata === undefined ? {} : { callProviderMetadata: chunk.providerMetadata }),
    ...(chunk.title === undefined ? {} : { title: chunk.title }),
  };
  const [call] = uiPartsToContents([part as Part], ["chunk"]);
  return call as Content;
}
