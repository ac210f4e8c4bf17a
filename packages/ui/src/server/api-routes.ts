import type { LogPoint, Thread, ThreadStore } from "@skein/thread-core";
import type { ListOrder, MessagePage, UiInfo } from "../api-types.js";
import { UiRequestError } from "../errors.js";
import { type BranchRequest, readBranch, versionMarks } from "./branch-reads.js";
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
      ...optionalParameter(query, "owner"),
      ...choiceParameter(query, "order", ORDERS),
      ...choiceParameter(query, "direction", DIRECTIONS),
      ...optionalParameter(query, "cursor"),
    }),
  "/api/thread": async ({ store }, query) => threadInfo(await openThread(store, addressFrom(query))),
  "/api/live": async ({ store }, query) => ({
    signature: await signatureOf(await openThread(store, addressFrom(query))),
  }),
  "/api/messages": async ({ store }, query) => {
    const thread = await openThread(store, addressFrom(query));
    // As read before the messages: a change made while the page is read makes a write from it a conflict.
    const revision = thread.revision ?? null;
    const branchAsked = branchFrom(query);
    const point = pointFrom(query);
    if (branchAsked && point)
      throw new UiRequestError(400, "Ask for a point (?at=) or a version (?version=), not both.");
    const { source, length, branch } = branchAsked
      ? await readBranch(thread, branchAsked)
      : { ...(await readAt(thread, point)), branch: undefined };
    const slice = await messagePage(
      source,
      length,
      integerParameter(query, "from"),
      integerParameter(query, "limit") ?? 50,
      query.get("before") || undefined,
    );
    // A point of the past is shown as it was; versions are offered on the current branch and the one shown.
    const versions =
      point === undefined && length !== null
        ? await versionMarks(thread, slice.messages, slice.from, branch?.version)
        : {};
    const page: MessagePage = {
      ...slice,
      revision,
      ...(Object.keys(versions).length > 0 ? { versions } : {}),
      ...(branch ? { branch } : {}),
    };
    return page;
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
  "/api/title": "title",
  "/api/switch": "switch",
};

const ORDERS: readonly ListOrder[] = ["updated", "created", "id"];
const DIRECTIONS = ["desc", "asc"] as const;

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
        "This UI is read-only; nothing was written. Start it with `skein ui --write` to fork, checkpoint, roll back, edit titles and make a version current.",
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

/** A parameter that takes one of a few words; anything else is refused, naming them. */
function choiceParameter<Choice extends string>(
  query: URLSearchParams,
  name: string,
  choices: readonly Choice[],
): Record<string, Choice> {
  const value = query.get(name);
  if (!value) return {};
  if (!(choices as readonly string[]).includes(value))
    throw new UiRequestError(
      400,
      `${name} must be ${choices.map((choice) => JSON.stringify(choice)).join(", ")}, not ${JSON.stringify(value.slice(0, 60))}.`,
    );
  return { [name]: value as Choice };
}

/** The version whose branch to show, from `?version=MESSAGE&index=K`, if asked. */
function branchFrom(query: URLSearchParams): BranchRequest | undefined {
  const messageId = query.get("version");
  if (!messageId) {
    if (query.get("index")) throw new UiRequestError(400, "index is a version's: give ?version= too.");
    return undefined;
  }
  const index = integerParameter(query, "index");
  if (index === undefined)
    throw new UiRequestError(400, "A version is asked by its message and its index: ?version=ID&index=K.");
  return { messageId, index };
}

function integerParameter(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === "") return undefined;
  if (!/^\d{1,15}$/.test(text))
    throw new UiRequestError(400, `${name} must be a whole number, not ${JSON.stringify(text)}.`);
  return Number(text);
}
