import { type LogState, newSortableId } from "@skein/thread-core/driver";
import { type JsonPath, MafDocumentError } from "./errors.js";
import type { JsonObject } from "./json-value.js";

/** What a MAF session or history becomes before it is a skein thread. */
export interface ImportedThread {
  id: string;
  createdAt: string;
  metadata: JsonObject;
  context: JsonObject;
  messages: JsonObject[];
  /** Where each message came from, for the error that names a repeated id. */
  paths: JsonPath[];
  document: string;
}

/**
 * The `memory` state of a thread holding these messages: one segment, no checkpoints, what
 * `store.import(state)` takes and `store.export(id)` gives. Message ids are unique in a skein thread, so a
 * MAF history that repeats one is refused, naming both places.
 */
export function memoryState(thread: ImportedThread): LogState {
  const seen = new Map<string, number>();
  thread.messages.forEach((message, index) => {
    const id = message.id as string;
    const first = seen.get(id);
    if (first !== undefined)
      throw new MafDocumentError(
        thread.document,
        thread.paths[index] ?? [],
        `message id ${JSON.stringify(id)} is also the id of message ${first + 1}; ids are unique in a skein thread`,
      );
    seen.set(id, index);
  });
  const segment = `seg_${newSortableId()}`;
  return {
    $type: "memory",
    $v: 1,
    id: thread.id,
    createdAt: thread.createdAt,
    metadata: thread.metadata,
    context: thread.context,
    revision: 1,
    end: { segment, offset: thread.messages.length },
    segments: [
      {
        id: segment,
        base: null,
        start: 0,
        createdAt: thread.createdAt,
        messages: thread.messages as LogState["segments"][number]["messages"],
      },
    ],
    events: [],
  } as LogState;
}
