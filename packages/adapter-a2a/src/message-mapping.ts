import { createHash } from "node:crypto";
import type { Content, Message } from "@skein/thread-core";
import { ContentSchema, MessageSchema } from "@skein/thread-core/driver";
import type { ArtifactJson, MessageJson, PartJson, TaskJson } from "./a2a-json.js";
import { contentToPart, partToContent } from "./part-mapping.js";

/**
 * The A2A message metadata key holding what a skein message has and an A2A message lacks (`createdAt`,
 * `authorName`, `metadata`, unknown fields), so messages sent by skein read back exactly as appended.
 */
export const SKEIN_METADATA_KEY = "skein";

/** Used only when neither the message nor anything before it says when it was written. */
const UNKNOWN_TIME = "1970-01-01T00:00:00.000Z";
const isTimestamp = (value: unknown): value is string =>
  MessageSchema.shape.createdAt.safeParse(value).success;

/** A skein user message as the A2A message that sends it in `contextId` (and `taskId`, to continue it). */
export function toA2aMessage(message: Message, target: { contextId: string; taskId?: string }): MessageJson {
  const { id, role: _role, contents, ...rest } = message;
  return {
    messageId: id,
    contextId: target.contextId,
    ...(target.taskId ? { taskId: target.taskId } : {}),
    role: "ROLE_USER",
    parts: contents.map(contentToPart),
    metadata: { [SKEIN_METADATA_KEY]: rest },
  };
}

export interface ReadContext {
  /** The id to use when the agent gave none (or one skein cannot hold). */
  fallbackId: string;
  /** When the message was written, if it does not say: the message before it, or the task's status time. */
  fallbackCreatedAt?: string;
}

/** An A2A message as a skein message: `ROLE_USER` → `user`, anything else → `assistant`. */
export function fromA2aMessage(json: MessageJson, context: ReadContext): Message {
  const { [SKEIN_METADATA_KEY]: skein, ...agentMetadata } = json.metadata ?? {};
  const base = {
    id: boundedId(json.messageId) ?? boundedId(context.fallbackId) ?? hashedId(context.fallbackId),
    role: json.role === "ROLE_USER" ? "user" : "assistant",
    createdAt: isTimestamp(context.fallbackCreatedAt) ? context.fallbackCreatedAt : UNKNOWN_TIME,
    contents: partsToContents(json.parts),
    ...(Object.keys(agentMetadata).length > 0 ? { metadata: { a2a: agentMetadata } } : {}),
  };
  if (isRecord(skein)) {
    // Fields a skein sender kept; the id, role and contents always come from the A2A message itself.
    const restored = MessageSchema.safeParse({ ...base, ...skein, id: base.id, role: base.role });
    if (restored.success) return restored.data;
  }
  return MessageSchema.parse(base);
}

/**
 * A task's conversation in order: its history, then its status message if the history lacks it, then one
 * assistant message per artifact (A2A keeps artifacts beside the history, not in it, so they read as the
 * end of the task). Messages without a time take the time of the message before them.
 */
export function taskMessages(task: TaskJson): Message[] {
  const taskId = task.id ?? "";
  const statusTime = isTimestamp(task.status?.timestamp) ? task.status?.timestamp : undefined;
  const messages: Message[] = [];
  let previous: string | undefined;
  const history = [...(task.history ?? [])];
  const statusMessage = task.status?.message;
  if (statusMessage && !history.some((entry) => entry.messageId === statusMessage.messageId)) {
    history.push(statusMessage);
  }
  history.forEach((entry, index) => {
    const message = fromA2aMessage(entry, {
      fallbackId: `${taskId}:${index}`,
      fallbackCreatedAt: previous ?? statusTime,
    });
    messages.push(message);
    previous = message.createdAt;
  });
  for (const artifact of task.artifacts ?? []) {
    messages.push(artifactMessage(taskId, artifact, statusTime ?? previous));
  }
  return messages;
}

/** One artifact as an assistant message whose id names the task and the artifact. */
export function artifactMessage(taskId: string, artifact: ArtifactJson, createdAt?: string): Message {
  const { artifactId = "", name, description, metadata } = artifact;
  const details = {
    taskId,
    artifactId,
    ...(name ? { name } : {}),
    ...(description ? { description } : {}),
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
  return MessageSchema.parse({
    id: boundedId(`${taskId}:artifact:${artifactId}`) ?? hashedId(`${taskId}:artifact:${artifactId}`),
    role: "assistant",
    createdAt: isTimestamp(createdAt) ? createdAt : UNKNOWN_TIME,
    contents: partsToContents(artifact.parts),
    metadata: { a2a: details },
  });
}

/** A part that maps to no valid content (bytes that are not base64, say) is kept whole as `a2a.part`. */
function partsToContents(parts: PartJson[] | undefined): Content[] {
  const contents: Content[] = [];
  for (const part of parts ?? []) {
    const content = partToContent(part);
    if (content === undefined) continue;
    const checked = ContentSchema.safeParse(content);
    contents.push(
      checked.success ? checked.data : { type: "a2a.part", part: JSON.parse(JSON.stringify(part)) },
    );
  }
  return contents;
}

function boundedId(id: string | undefined): string | undefined {
  return id !== undefined && id.length > 0 && id.length <= 256 ? id : undefined;
}

/** A stable id for an id skein cannot hold (over 256 characters). */
function hashedId(id: string): string {
  return `a2a-${createHash("sha256").update(id).digest("base64url")}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
