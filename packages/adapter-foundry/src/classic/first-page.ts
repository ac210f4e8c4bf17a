import type { PagedAsyncIterableIterator } from "@azure/ai-agents";

type RawResponse = { status: number; parsedBody?: unknown };

/** One page of a classic list call, and whether the service says more follow. */
export interface FirstPage<T> {
  items: T[];
  hasMore: boolean | undefined;
}

/**
 * Reads only the first page of an `@azure/ai-agents` list call. The service sends no next link, so the
 * SDK's iterator never goes past one page anyway; callers page by hand with `after`. The raw body is read
 * for `has_more`, and, on a refusal, for the service's error, which the SDK's paging helper drops from the
 * error it throws ("Pagination failed with unexpected statusCode …").
 */
export async function firstPage<T>(
  list: (onResponse: (response: RawResponse) => void) => PagedAsyncIterableIterator<T>,
): Promise<FirstPage<T>> {
  let body: { has_more?: unknown; error?: unknown } | undefined;
  const pages = list((response) => {
    body = response.parsedBody as typeof body;
  }).byPage();
  try {
    const first = await pages.next();
    return {
      items: first.done ? [] : first.value,
      hasMore: typeof body?.has_more === "boolean" ? body.has_more : undefined,
    };
  } catch (error) {
    const details = (error as { details?: unknown }).details;
    if (error instanceof Error && details === undefined && body?.error !== undefined) {
      Object.assign(error, { details: { error: body.error } });
    }
    throw error;
  }
}
