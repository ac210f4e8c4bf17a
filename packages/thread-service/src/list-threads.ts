import { type ListOptions, MAX_LIST_LIMIT, type ThreadStore, type ThreadSummary } from "@skein/thread-core";
import { SERVICE_RECORD_KEY } from "./service-record.js";

/** Options of `service.listThreads`: whose threads, in what order, how many, from which cursor. */
export interface ListServiceThreadsOptions {
  /** Only this owner's threads. */
  owner?: string;
  /** Only threads whose top-level metadata keys equal these values. */
  where?: Record<string, unknown>;
  /** @default "updated" (most recently changed first) */
  order?: ListOptions["order"];
  direction?: ListOptions["direction"];
  /** @default 20 */
  limit?: number;
  /** The `cursor` of the previous page, given with the same options. */
  cursor?: string;
}

/**
 * A service thread as a list of conversations shows it: what `store.list` gives, the id as `threadId` and the
 * metadata without the service's own record.
 */
export type ServiceThreadSummary = Omit<ThreadSummary, "id"> & { threadId: string };

/**
 * The service's threads of the store, a page at a time: other threads the store holds (ones no service
 * created) are skipped, so a page is read on until it is full or the store's threads end.
 */
export async function listServiceThreads(
  store: ThreadStore,
  options: ListServiceThreadsOptions,
): Promise<{ threads: ServiceThreadSummary[]; cursor?: string }> {
  const limit = options.limit ?? 20;
  const threads: ServiceThreadSummary[] = [];
  let cursor = options.cursor;
  do {
    const page = await store.list({
      ...(options.owner === undefined ? {} : { owner: options.owner }),
      ...(options.where === undefined ? {} : { where: options.where }),
      order: options.order ?? "updated",
      ...(options.direction === undefined ? {} : { direction: options.direction }),
      // Asked for no more than are still missing, so the page ends exactly where a store cursor does.
      limit: Number.isSafeInteger(limit)
        ? Math.min(Math.max(limit - threads.length, 0), MAX_LIST_LIMIT)
        : limit,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const item of page.items) {
      if (!Object.hasOwn(item.metadata, SERVICE_RECORD_KEY)) continue;
      const { [SERVICE_RECORD_KEY]: _record, ...metadata } = item.metadata;
      const { id, metadata: _all, ...rest } = item;
      threads.push({ threadId: id, ...rest, metadata });
    }
    cursor = page.cursor;
  } while (cursor !== undefined && threads.length < limit);
  return cursor === undefined ? { threads } : { threads, cursor };
}
