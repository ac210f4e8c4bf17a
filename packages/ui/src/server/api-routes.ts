import type { LogPoint, Thread, ThreadStore } from "@skein/thread-core";
import type { UiInfo } from "../api-types.js";
import { UiRequestError } from "../errors.js";
import { compareSides, historyGraphData, logIdOf } from "./history-reads.js";
import {
  addressFrom,
  openThread,
  pointFrom,
  type Readable,
  readableAt,
  scopedStore,
} from "./thread-address.js";
import {
  contextView,
  knownLength,
  listThreads,
  messagePage,
  signatureOf,
  threadInfo,
} from "./thread-reads.js";
import { parseWriteRequest, runWrite, type WriteAction } from "./write-actions.js";

export interface RouteContext {
  store: ThreadStore;
  info: UiInfo;
}

/** A GET route: the query in, JSON out. */
type ReadRoute = (context: RouteContext, query: URLSearchParams) => Promise<unknown>;

const READ_ROUTES: Record<string, ReadRoute> = {
  "/api/info": async ({ info }) => info,
  "/api/threads": async ({ store }, query) =>
    listThreads(store, {
      limit: integerParameter(query, "limit") ?? 50,
      ...optionalParameter(query, "scope"),
      ...optionalParameter(query, "prefix"),
      ...optionalParameter(query, "cursor"),
    }),
  "/api/thread": async ({ store }, query) => threadInfo(await openThread(store, addressFrom(query))),
  "/api/live": async ({ store }, query) => ({
    signature: await signatureOf(await openThread(store, addressFrom(query))),
  }),
  "/api/messages": async ({ store }, query) => {
    const { source, length } = await readAt(await openThread(store, addressFrom(query)), pointFrom(query));
    return messagePage(
      source,
      length,
      integerParameter(query, "from"),
      integerParameter(query, "limit") ?? 50,
      query.get("before") || undefined,
    );
  },
  "/api/view": async ({ store }, query) => {
    const { source, length } = await readAt(await openThread(store, addressFrom(query)), pointFrom(query));
    return contextView(
      source,
      length,
      integerParameter(query, "maxTokens") ?? 4000,
      query.get("keepSystem") !== "false",
    );
  },
  "/api/graph": async ({ store }, query) => {
    const address = addressFrom(query);
    const thread = await openThread(store, address);
    const id = logIdOf(thread);
    if (id === undefined)
      throw new UiRequestError(
        501,
        `A ${thread.type} thread keeps no log of segments here, so it has no history graph.`,
      );
    return historyGraphData(scopedStore(store, address.scope), id, { forks: query.get("forks") === "true" });
  },
  "/api/compare": async ({ store }, query) => {
    const thread = await openThread(store, addressFrom(query));
    if (!query.get("a") || !query.get("b"))
      throw new UiRequestError(400, 'A comparison needs two points, ?a= and ?b= (a point, or "head").');
    const side = async (name: string) => {
      const point = pointFrom(query, name);
      const { source, length } = await readAt(thread, point);
      if (length === null) throw new UiRequestError(501, `A ${thread.type} thread has no points to compare.`);
      return { source, point: point ?? null, length };
    };
    return compareSides(await side("a"), await side("b"));
  },
};

const WRITE_ROUTES: Record<string, WriteAction> = {
  "/api/fork": "fork",
  "/api/checkpoint": "checkpoint",
  "/api/rollback": "rollback",
};

/** Answers one API request with the JSON to send; errors are thrown for the server to describe. */
export async function routeApi(
  context: RouteContext,
  method: string,
  url: URL,
  readBody: () => Promise<unknown>,
): Promise<unknown> {
  const read = READ_ROUTES[url.pathname];
  if (read) {
    if (method !== "GET") throw new UiRequestError(405, `${url.pathname} answers GET only.`);
    return read(context, url.searchParams);
  }
  const action = WRITE_ROUTES[url.pathname];
  if (action) {
    if (method !== "POST") throw new UiRequestError(405, `${url.pathname} answers POST only.`);
    if (!context.info.write)
      throw new UiRequestError(
        403,
        "This UI is read-only; start it with `skein ui --write` to fork, checkpoint and roll back.",
      );
    return runWrite(context.store, action, parseWriteRequest(await readBody()));
  }
  throw new UiRequestError(404, `No such API route: ${url.pathname}.`);
}

/**
 * What reads go to and how long it is: at a point, the length is the position the thread recorded for it
 * (`at()`'s snapshot), never the one the request carries; a point whose position differs is refused.
 */
async function readAt(
  thread: Thread,
  point: LogPoint | undefined,
): Promise<{ source: Readable; length: number | null }> {
  const length = knownLength(thread);
  if (point === undefined) return { source: thread, length };
  const snapshot = await readableAt(thread, point);
  if (length === null) return { source: snapshot, length: null };
  if (snapshot.point.position !== point.position) {
    throw new UiRequestError(
      400,
      `The point ${point.segment}:${point.offset} is at position ${snapshot.point.position}, not ${point.position}: take points from the history graph.`,
    );
  }
  return { source: snapshot, length: snapshot.point.position };
}

function optionalParameter(query: URLSearchParams, name: string): Record<string, string> {
  const value = query.get(name);
  return value ? { [name]: value } : {};
}

function integerParameter(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === "") return undefined;
  if (!/^\d{1,15}$/.test(text))
    throw new UiRequestError(400, `${name} must be a whole number, not ${JSON.stringify(text)}.`);
  return Number(text);
}
