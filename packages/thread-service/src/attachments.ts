import type { Thread } from "@skein/thread-core";
import { ThreadKilledError, ThreadLockedError } from "./errors.js";
import { changeServiceRecord } from "./optimistic-update.js";
import type { Attachment } from "./service-record.js";

export type { Attachment } from "./service-record.js";

/** A file to attach: its id where the runner reads files (the model provider's file id, say). */
export interface FileAttachment {
  fileId: string;
  name?: string;
  mediaType?: string;
}

const MAX_FILE_ID_LENGTH = 1024;

/**
 * Adds (or replaces, by file id) or removes one attachment of a thread, stored in its service record.
 * A killed or locked thread's attachments no longer change.
 */
export async function changeAttachments(
  thread: Thread,
  change: { attach: FileAttachment } | { detach: string },
): Promise<Attachment[]> {
  const added = "attach" in change ? checkAttachment(change.attach) : undefined;
  const record = await changeServiceRecord(thread, (current) => {
    if (current.lifecycle === "killed") throw new ThreadKilledError(thread.id);
    const branch = current.branches[current.branches.length - 1];
    if (branch !== undefined) throw new ThreadLockedError(thread.id, branch);
    const fileId = added?.fileId ?? (change as { detach: string }).detach;
    const others = current.attachments.filter((attachment) => attachment.fileId !== fileId);
    if (!added && others.length === current.attachments.length) return undefined;
    return { ...current, attachments: added ? [...others, added] : others };
  });
  return record.attachments;
}

function checkAttachment(file: FileAttachment): Attachment {
  const { fileId, name, mediaType } = file ?? ({} as FileAttachment);
  if (typeof fileId !== "string" || fileId.length === 0 || fileId.length > MAX_FILE_ID_LENGTH) {
    throw new TypeError(`fileId must be a string of 1 to ${MAX_FILE_ID_LENGTH} characters`);
  }
  if (name !== undefined && typeof name !== "string") throw new TypeError("name must be a string");
  if (mediaType !== undefined && typeof mediaType !== "string")
    throw new TypeError("mediaType must be a string");
  return {
    fileId,
    ...(name === undefined ? {} : { name }),
    ...(mediaType === undefined ? {} : { mediaType }),
    attachedAt: new Date().toISOString(),
  };
}
