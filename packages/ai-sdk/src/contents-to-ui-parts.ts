import type { Content } from "@skein/thread-core";
import type { FunctionCallContent, FunctionResultContent } from "@skein/thread-core/driver";
import type { UIMessage } from "ai";
import { AI_MAJOR } from "./ai-major.js";
import { modelPartAsUIPart } from "./model-parts-as-ui.js";
import { callInput, contentExtra, type Json, SKEIN_DATA_PART, TYPE_PREFIX } from "./namespace.js";
import { dataUrl } from "./ui-part-to-contents.js";

type Part = UIMessage["parts"][number];

/** The approval parts of model messages (`fromModelMessages`), which set the approval state of their call's tool part. */
const APPROVAL_REQUEST = `${TYPE_PREFIX}tool-approval-request`;
const APPROVAL_RESPONSE = `${TYPE_PREFIX}tool-approval-response`;

/**
 * UI part types the installed SDK validates, which an `ai-sdk.<type>` content comes back as. AI SDK 7's parts
 * stored by an app on 7 stay `data-skein` parts under ai 6, which has no type for them (and saving those back
 * gives the same contents).
 */
const NAMESPACED_PARTS = new Set([
  "source-url",
  "source-document",
  "step-start",
  ...(AI_MAJOR === 7 ? ["custom", "reasoning-file", "steering-message"] : []),
]);

/**
 * The UI parts of skein contents, in order. A `function_result` joins the tool part of its `function_call`
 * (found in `calls`, which holds the message's tool parts so far, across folded tool messages); a content with
 * no UI part is a `data-skein` part holding it unchanged.
 */
export function contentsToUIParts(
  contents: readonly Content[],
  calls: Map<string, Part & { state: string }>,
): Part[] {
  const parts: Part[] = [];
  const pending = new Map<string, Json>();
  for (const content of contents) {
    if (foldMarker(content, parts, pending)) continue;
    const part = contentToUIPart(content, calls);
    if (!part) continue;
    const start = pending.get(part.type);
    pending.delete(part.type);
    parts.push(start ? ({ ...start, ...part } as Part) : part);
  }
  return parts;
}

/**
 * The markers a streamed reply holds where its deltas alone would lose a text or reasoning part's fields
 * (`ChunkDeltas`): a start gives the next part of its kind its id and provider metadata, an end gives the last
 * one its provider metadata. True when `content` was one.
 */
function foldMarker(content: Content, parts: Part[], pending: Map<string, Json>): boolean {
  const marker = /^ai-sdk\.(text|reasoning)-(start|end)$/.exec(content.type);
  if (!marker) return false;
  const [, kind, edge] = marker as unknown as [string, string, string];
  const { type: _type, ...fields } = content as Json;
  if (edge === "start") {
    pending.set(kind, fields);
    return true;
  }
  const last = parts.findLast((part) => part.type === kind) as Json | undefined;
  if (last && fields.providerMetadata !== undefined) last.providerMetadata = fields.providerMetadata;
  return true;
}

function contentToUIPart(content: Content, calls: Map<string, Part & { state: string }>): Part | undefined {
  const extra = contentExtra(content);
  switch (content.type) {
    case "text":
    case "reasoning":
      return { ...extra, type: content.type, text: content.text as string } as Part;
    case "data": {
      const { mediaType, data, name } = content as { mediaType: string; data: string; name?: string };
      return file(mediaType, dataUrl(mediaType, data), name, extra);
    }
    case "uri": {
      const { mediaType, uri, name } = content as { mediaType?: string; uri: string; name?: string };
      return mediaType === undefined ? skeinPart(content) : file(mediaType, uri, name, extra);
    }
    case "function_call":
      return toolPart(content as FunctionCallContent, extra, calls);
    case "function_result": {
      const result = content as FunctionResultContent;
      const call = calls.get(result.callId);
      if (!call) return skeinPart(content);
      completeCall(call, result);
      return undefined;
    }
    case APPROVAL_REQUEST:
    case APPROVAL_RESPONSE:
      return applyApproval(content, calls) ? undefined : skeinPart(content);
    default: {
      const type = content.type.startsWith(TYPE_PREFIX) ? content.type.slice(TYPE_PREFIX.length) : undefined;
      if (type && (NAMESPACED_PARTS.has(type) || type.startsWith("data-"))) {
        if (type === "custom" || type === "reasoning-file")
          return modelPartAsUIPart(type, content as Json) as Part;
        const { type: _type, ...rest } = content;
        return { ...rest, type } as Part;
      }
      return skeinPart(content);
    }
  }
}

function file(mediaType: string, url: string, name: string | undefined, extra: Json | undefined): Part {
  // What fromModelMessages kept to give a model part back exactly is no field of a UI file part.
  const {
    encoding: _encoding,
    noMediaType: _noMediaType,
    fileData: _fileData,
    originalUrl: _originalUrl,
    reference: _reference,
    ...kept
  } = extra ?? {};
  return {
    ...kept,
    type: "file",
    mediaType,
    url,
    ...(name === undefined ? {} : { filename: name }),
  } as Part;
}

function skeinPart(content: Content): Part {
  return { type: SKEIN_DATA_PART, data: content } as Part;
}

/**
 * A `function_call` as a tool part. One this package wrote keeps its part's type and state; any other is a
 * `tool-<name>` part, `input-available` until a `function_result` completes it.
 */
function toolPart(
  content: FunctionCallContent,
  extra: Json | undefined,
  calls: Map<string, Part & { state: string }>,
): Part {
  const { noInput: _noInput, input: _input, ...kept } = extra ?? {};
  const input = callInput(content, extra);
  const type = typeof kept.type === "string" ? kept.type : `tool-${content.name}`;
  const part = {
    state: "input-available",
    ...kept,
    type,
    toolCallId: content.callId,
    ...(type === "dynamic-tool" ? { toolName: content.name } : {}),
    ...(input === undefined ? {} : { input }),
  } as Part & { state: string };
  calls.set(content.callId, part);
  return part;
}

/**
 * A model message's approval request or response as the state of its call's tool part (`approval-requested`,
 * `approval-responded`); false when the call is not in this UI message, or not waiting for that step.
 */
function applyApproval(content: Content, calls: Map<string, Part & { state: string }>): boolean {
  const approval = content as Json;
  if (content.type === APPROVAL_REQUEST) {
    const part = calls.get(String(approval.toolCallId)) as Record<string, unknown> | undefined;
    if (part?.state !== "input-available") return false;
    const { type: _type, toolCallId: _toolCallId, approvalId, reason, ...rest } = approval;
    part.state = "approval-requested";
    // A 7.x request's reason is the UI approval's requestReason; the UI's reason is the response's.
    part.approval = { id: approvalId, ...rest, ...(reason === undefined ? {} : { requestReason: reason }) };
    return true;
  }
  const part = [...calls.values()].find(
    (candidate) => (candidate as { approval?: { id?: unknown } }).approval?.id === approval.approvalId,
  ) as Record<string, unknown> | undefined;
  if (part?.state !== "approval-requested" || typeof approval.approved !== "boolean") return false;
  part.state = "approval-responded";
  part.approval = {
    ...(part.approval as Json),
    approved: approval.approved,
    ...(typeof approval.reason === "string" ? { reason: approval.reason } : {}),
  };
  return true;
}

/** Gives a tool part the outcome its `function_result` holds, as the state the part was saved in says. */
function completeCall(call: Part & { state: string }, result: FunctionResultContent): void {
  const part = call as Record<string, unknown>;
  const saved = typeof part.state === "string" && part.state.startsWith("output-") ? part.state : undefined;
  if (saved === "output-denied") return;
  if (saved === undefined && (part.approval as { approved?: boolean } | undefined)?.approved === false) {
    part.state = "output-denied";
    return;
  }
  if (saved === "output-error" || (saved === undefined && result.isError === true)) {
    part.state = "output-error";
    part.errorText = typeof result.result === "string" ? result.result : JSON.stringify(result.result);
    return;
  }
  part.state = "output-available";
  part.output = result.result;
}
