import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { temporaryDirectory } from "./temporary-directories.js";
import { backendsGone, dropSchema, postgresStoreUrl, uniqueSchema } from "./test-postgres.js";
import { deleteKeys, redisStoreUrl, uniquePrefix } from "./test-redis.js";

/** A store every process of a test can open by URL, and how to clean up after it. */
export interface SharedStore {
  url: string;
  cleanup(): Promise<void>;
  /**
   * Resolves once nothing a killed process sent can still change the store. Absent where a dead process
   * writes nothing more: fs writes from the process itself, and redis runs each script as it reads it, so a
   * killed writer's last one has run before a command the test sends after the kill is read.
   */
  settled?(): Promise<void>;
}

/** A fresh fs store: a `file:` URL of a new directory. */
export async function fileStore(name: string): Promise<SharedStore> {
  const directory = join(await temporaryDirectory(name), "store");
  return { url: pathToFileURL(directory).href, cleanup: async () => {} };
}

/** A fresh redis store: a prefix no one else uses on the server at `serverUrl`, deleted afterwards. */
export function redisStore(
  serverUrl: string,
  name: string,
  parameters: Record<string, string> = {},
): SharedStore {
  const prefix = uniquePrefix(name);
  return { url: redisStoreUrl(serverUrl, prefix, parameters), cleanup: () => deleteKeys(serverUrl, prefix) };
}

/** A fresh postgres store: a schema no one else uses on the server at `serverUrl`, dropped afterwards. */
export function postgresStore(serverUrl: string, name: string): Required<SharedStore> {
  const schema = uniqueSchema(name);
  // The schema also names the backends of every process that opens the store, for `settled`.
  const url = new URL(postgresStoreUrl(serverUrl, schema));
  url.searchParams.set("application_name", schema);
  return {
    url: url.href,
    cleanup: () => dropSchema(serverUrl, schema),
    settled: () => backendsGone(serverUrl, schema),
  };
}
