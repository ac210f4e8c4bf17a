import { InvalidThreadStateError, LogThread, MAX_TITLE_LENGTH, type Thread } from "@skein/thread-core";
import type { WriteRequest, WriteResult } from "../api-types.js";
import { UiRequestError } from "../errors.js";
import { requireVersioned } from "./branch-reads.js";

/**
 * Sets or clears the thread's title with `update({ title }, { ifRevision })`: a thread that moved on since
 * the page read it refuses atomically (`ConcurrencyError`, 409) and keeps the title it has.
 */
export async function updateTitle(thread: Thread, request: WriteRequest): Promise<WriteResult> {
  if (request.title === undefined)
    throw new UiRequestError(400, "A title change sends { title }: a string, or null to clear it.");
  // Other types keep their title in their service, or have no revision to check the change against.
  if (!LogThread.isInstance(thread))
    throw new UiRequestError(
      501,
      `A ${thread.type} thread's title cannot be changed here: only threads kept as a log in a store have one that is checked against a revision.`,
    );
  const title = request.title;
  if (title !== null && [...title].length > MAX_TITLE_LENGTH)
    throw new UiRequestError(400, `A title has at most ${MAX_TITLE_LENGTH} characters; nothing was written.`);
  try {
    await thread.update({ title }, { ifRevision: request.ifRevision });
  } catch (error) {
    // The library's check of the title itself (a lone surrogate): the request's fault, so a 400.
    if (InvalidThreadStateError.isInstance(error))
      throw new UiRequestError(
        400,
        `That title cannot be stored; nothing was written. ${error.message}`,
        error,
      );
    throw error;
  }
  await thread.refresh();
  return {
    message: title === null ? `Cleared the title of ${thread.id}.` : `Renamed ${thread.id}.`,
    revision: thread.revision ?? null,
  };
}

/**
 * Makes a version of a message current with `switchTo(id, { ifRevision, index })`: the branch left stays a
 * version in its turn, and a thread that moved on since the page read it refuses atomically.
 */
export async function switchVersion(thread: Thread, request: WriteRequest): Promise<WriteResult> {
  if (request.alternativeId === undefined || request.index === undefined)
    throw new UiRequestError(
      400,
      "A switch names the version: { alternativeId, index } from alternatives().",
    );
  const versioned = requireVersioned(thread);
  await versioned.switchTo(request.alternativeId, {
    ifRevision: request.ifRevision,
    index: request.index,
  });
  await thread.refresh();
  return {
    message: `Made version ${request.index + 1} current in ${thread.id}.`,
    revision: thread.revision ?? null,
  };
}
