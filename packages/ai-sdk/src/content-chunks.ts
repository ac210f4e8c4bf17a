import type { Content } from "@skein/thread-core";
import type { UIMessage, UIMessageChunk } from "ai";
import { contentsToUIParts } from "./contents-to-ui-parts.js";
import { contentExtra, type Json, SKEIN_DATA_PART, TYPE_PREFIX } from "./namespace.js";

type Part = UIMessage["parts"][number];
type Kind = "text" | "reasoning";
type ToolPart = Part & {
  toolCallId: string;
  toolName?: string;
  input?: unknown;
  providerExecuted?: boolean;
  callProviderMetadata?: unknown;
  title?: string;
};

/**
 * The UI message stream chunks that rebuild, in a client, the parts a streamed reply's contents stand for: the
 * way back of `ChunkDeltas`, and of a whole message's contents as `fromUIMessages` writes them (a text content
 * with its `ai-sdk` field is a whole text part). A client that reads `start`, these chunks and `finish` holds
 * the message `toUIMessages` gives of the contents.
 */
export class ContentChunks {
  #open: { kind: Kind; id: string } | undefined;
  #stepOpen = false;
  #parts = 0;
  readonly #calls = new Map<string, Part & { state: string }>();

  chunks(content: Content): UIMessageChunk[] {
    switch (content.type) {
      case "text":
      case "reasoning":
        return this.#text(content.type, content.text as string, contentExtra(content));
      case `${TYPE_PREFIX}text-start`:
      case `${TYPE_PREFIX}reasoning-start`:
        return [
          ...this.close(),
          this.#start(kindOf(content.type), (content as Json).providerMetadata, (content as Json).id),
        ];
      case `${TYPE_PREFIX}text-end`:
      case `${TYPE_PREFIX}reasoning-end`:
        return this.#open?.kind === kindOf(content.type)
          ? this.close((content as Json).providerMetadata)
          : [];
      case `${TYPE_PREFIX}step-start`: {
        const chunks: UIMessageChunk[] = [...this.close(), ...this.#finishStep(), { type: "start-step" }];
        this.#stepOpen = true;
        return chunks;
      }
      case "function_result":
        return [...this.close(), ...this.#result(content as Json)];
      default:
        return [...this.close(), ...this.#part(content)];
    }
  }

  /** What ends the parts still open: the last text part and the last step. */
  finish(): UIMessageChunk[] {
    return [...this.close(), ...this.#finishStep()];
  }

  /** Ends the open text or reasoning part, if any (with the provider metadata its end carried). */
  close(providerMetadata?: unknown): UIMessageChunk[] {
    const open = this.#open;
    if (!open) return [];
    this.#open = undefined;
    return [{ type: `${open.kind}-end`, id: open.id, ...metadataOf(providerMetadata) } as UIMessageChunk];
  }

  #text(kind: Kind, text: string, extra: Json | undefined): UIMessageChunk[] {
    const delta = (id: string) =>
      text.length === 0 ? [] : [{ type: `${kind}-delta`, id, delta: text } as UIMessageChunk];
    // A plain delta goes on the open part of its kind; a content with its part's fields is a whole part.
    if (extra === undefined && this.#open?.kind === kind) return delta(this.#open.id);
    const providerMetadata = extra?.providerMetadata;
    const chunks = [...this.close(), this.#start(kind, providerMetadata, extra?.id)];
    chunks.push(...delta((this.#open as { id: string }).id));
    if (extra !== undefined) chunks.push(...this.close(providerMetadata));
    return chunks;
  }

  /** Opens a part under its own id (a reasoning part keeps it) or a new one. */
  #start(kind: Kind, providerMetadata: unknown, given?: unknown): UIMessageChunk {
    const id = typeof given === "string" ? given : `${kind}-${this.#parts++}`;
    this.#open = { kind, id };
    return { type: `${kind}-start`, id, ...metadataOf(providerMetadata) } as UIMessageChunk;
  }

  #finishStep(): UIMessageChunk[] {
    if (!this.#stepOpen) return [];
    this.#stepOpen = false;
    return [{ type: "finish-step" }];
  }

  #result(result: Json): UIMessageChunk[] {
    const toolCallId = String(result.callId);
    if (!this.#calls.has(toolCallId)) return [{ type: SKEIN_DATA_PART, data: result } as UIMessageChunk];
    if (result.isError === true) {
      return [{ type: "tool-output-error", toolCallId, errorText: String(result.result) }];
    }
    return [{ type: "tool-output-available", toolCallId, output: result.result }];
  }

  /** A content that makes one UI part of its own: a tool call, a file, a source, a data part. */
  #part(content: Content): UIMessageChunk[] {
    const [part] = contentsToUIParts([content], this.#calls) as Array<Record<string, unknown> | undefined>;
    if (!part) return [];
    const type = String(part.type);
    if (type === "dynamic-tool" || type.startsWith("tool-")) return [callChunk(part as ToolPart)];
    if (type === "step-start") return [];
    if (type === "file") {
      // A file chunk carries no name: a file part with one (never one a model streamed) comes back without it.
      const { url, mediaType, providerMetadata } = part;
      return [{ type: "file", url, mediaType, ...metadataOf(providerMetadata) } as UIMessageChunk];
    }
    const { state: _state, ...rest } = part;
    return [rest as UIMessageChunk];
  }
}

function kindOf(type: string): Kind {
  return type.startsWith(`${TYPE_PREFIX}reasoning`) ? "reasoning" : "text";
}

function metadataOf(providerMetadata: unknown): { providerMetadata?: unknown } {
  return providerMetadata === undefined ? {} : { providerMetadata };
}

/** The chunk that gives a client a tool part with its whole input, as the original stream's did. */
function callChunk(part: ToolPart): UIMessageChunk {
  const dynamic = part.type === "dynamic-tool";
  return {
    type: "tool-input-available",
    toolCallId: part.toolCallId,
    toolName: dynamic ? (part.toolName as string) : part.type.slice("tool-".length),
    input: part.input,
    ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
    ...(part.callProviderMetadata === undefined ? {} : { providerMetadata: part.callProviderMetadata }),
    ...(dynamic ? { dynamic: true } : {}),
    ...(part.title === undefined ? {} : { title: part.title }),
  } as UIMessageChunk;
}
