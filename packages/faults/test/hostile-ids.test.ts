import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { openStore, SkeinError, type ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "./support/redis-servers.js";
import { temporaryDirectory } from "./support/temporary-directories.js";
import {
  dropSchema,
  postgresStoreUrl,
  serverTables,
  uniqueSchema,
  usePostgres,
} from "./support/test-postgres.js";
import { allKeys, redisStoreUrl, uniquePrefix } from "./support/test-redis.js";

/** A name under the system's temporary directory that a path traversal would create. */
const escapeName = `skein-escape-${randomBytes(4).toString("hex")}`;

/** Ids every store must keep safely, each apart from every other. */
const ACCEPTED = [
  `../../../../../../${tmpdir().slice(1)}/${escapeName}`,
  `..${sep}..${sep}${escapeName}`,
  "..",
  ".",
  "/",
  "/etc/passwd",
  "a/../../b",
  "..\\..\\windows",
  "C:\\Windows\\system32",
  "con",
  "NUL",
  "COM1",
  "~",
  "~root",
  "%2e%2e%2f",
  "%00",
  " ",
  " padded ",
  "trailing.",
  "Case",
  "case",
  "\u00e9",
  "e\u0301",
  "*",
  "?",
  "[",
  "]",
  "[a-z]",
  "{",
  "}",
  "{}",
  "{a}b",
  "a}b{c",
  ":",
  "index",
  "a:index",
  "=a",
  "#x",
  "\\",
  "\u2028\u2029",
  "\ufeff",
  "\uffff",
  "x".repeat(256),
  "🧵".repeat(256),
  "ünïcödé-".repeat(32),
];

/** Ids every store must refuse with InvalidThreadIdError, before touching its backend. */
const REFUSED = [
  "",
  "\u0000",
  "a\u0000b",
  "../\u0000/etc/passwd",
  "\n",
  "line\r\nbreak",
  "\t",
  "\u001b[31mred",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u009f",
  "x".repeat(257),
  "x".repeat(10_240),
  "🧵".repeat(257),
  "\ud800",
  "a\udc00",
];

/** Segment ids an imported log may carry; stores name their files and keys safely whatever they say. */
const HOSTILE_SEGMENTS = ["../../../../segment-escape", "*", "{x}", "a:b", "..", "s".repeat(256)];
/** Segment ids a log may not carry: control characters (scopes' separator) and more than 256 characters. */
const REFUSED_SEGMENTS = ["\u0000", "a\u001fb", "\u001b[31m", "s".repeat(10_000)];

async function refused(call: () => Promise<unknown>): Promise<string> {
  const error = await call().then(
    () => new Error("the call succeeded"),
    (thrown: unknown) => thrown as Error,
  );
  expect(SkeinError.isInstance(error), String(error)).toBe(true);
  return error.name;
}

/** A memory-JSON log whose segments carry hostile ids, forming one chain. */
function logWithSegments(id: string, segmentIds = HOSTILE_SEGMENTS) {
  const createdAt = new Date().toISOString();
  const segments = segmentIds.map((segment, index) => ({
    id: segment,
    base: index === 0 ? null : { segment: segmentIds[index - 1] as string, offset: 1 },
    start: index,
    createdAt,
    messages: [
      { id: `m${index}`, role: "user", createdAt, contents: [{ type: "text", text: `in ${index}` }] },
    ],
  }));
  return {
    $type: "memory",
    $v: 1,
    id,
    createdAt,
    revision: 3,
    end: { segment: segmentIds.at(-1) as string, offset: 1 },
    segments,
    events: [],
  };
}

/** Does everything a thread supports with each accepted id, and checks it comes back as itself. */
async function exercise(store: ThreadStore): Promise<void> {
  for (const id of ACCEPTED) {
    const thread = await store.create({ id, metadata: { id } });
    await thread.append({ id, role: "user", text: `I am ${JSON.stringify(id)}` });
    const checkpoint = await thread.checkpoint(id);
    await thread.append({ id: `${id.slice(0, 200)}-2`, role: "user", text: "second" });
    await thread.rollback(checkpoint);
    const fork = await thread.fork();
    expect((await fork.messages()).map((message) => message.id)).toEqual([id]);
    await fork.delete();
  }
  for (const id of ACCEPTED) {
    const thread = await store.get(id);
    expect(thread.id).toBe(id);
    expect(thread.metadata).toEqual({ id });
    expect((await thread.messages()).map((message) => message.contents)).toEqual([
      [{ type: "text", text: `I am ${JSON.stringify(id)}` }],
    ]);
    const exported = await store.export(id);
    expect(exported.id).toBe(id);
  }
  const listed: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: 7, ...(cursor ? { cursor } : {}) });
    listed.push(...page.items.map((item) => item.id));
    cursor = page.cursor;
  } while (cursor);
  expect(listed).toEqual([...ACCEPTED].sort());
  // Deleting one never touches another, however pattern-like either is.
  for (const id of ["*", "?", "[a-z]", "{", ".."]) expect(await store.delete(id)).toBe(true);
  for (const id of ACCEPTED.filter((id) => !["*", "?", "[a-z]", "{", ".."].includes(id))) {
    expect((await store.get(id)).id).toBe(id);
  }

  for (const id of REFUSED) {
    expect(await refused(() => store.create({ id }))).toBe("InvalidThreadIdError");
    expect(await refused(() => store.get(id))).toBe("InvalidThreadIdError");
    expect(await refused(() => store.delete(id))).toBe("InvalidThreadIdError");
    expect(await refused(() => store.export(id))).toBe("InvalidThreadIdError");
    expect(await refused(async () => store.scope(id))).toBe("InvalidThreadIdError");
    expect(await refused(async () => (await store.get("case")).fork({ id }))).toBe("InvalidThreadIdError");
    expect(await refused(async () => store.import(await store.export("case"), { id }))).toBe(
      "InvalidThreadIdError",
    );
    // A document that carries such an id is an invalid state.
    expect(await refused(() => store.open({ $type: store.nativeType, id }))).toBe("InvalidThreadStateError");
    expect(await refused(() => store.import(logWithSegments(id)))).toBe("InvalidThreadStateError");
  }

  // Hostile segment ids in an imported log are stored and read back like any other.
  const imported = await store.import(logWithSegments("hostile-segments"));
  expect((await imported.messages()).map((message) => message.id)).toEqual(
    HOSTILE_SEGMENTS.map((_, index) => `m${index}`),
  );
  // Control characters and over-long segment ids are refused before anything is written.
  for (const segment of REFUSED_SEGMENTS) {
    expect(await refused(() => store.import(logWithSegments("refused-segments", ["plain", segment])))).toBe(
      "InvalidThreadStateError",
    );
  }
  expect(await refused(() => store.get("refused-segments"))).toBe("ThreadNotFoundError");
}

const postgres = usePostgres();

describe("hostile thread ids", () => {
  let server: RedisServer;
  beforeAll(async () => {
    // A server of this file's own, so that every key on it can be checked.
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.dispose();
    expect(existsSync(join(tmpdir(), escapeName))).toBe(false);
  });

  it("memory: stored apart, each as itself; invalid ids refused", async () => {
    const store = await openStore("memory:");
    await exercise(store);
    await exercise(store.scope("tenant"));
    await store.close();
  });

  it("fs: stored apart, each as itself, nothing written outside the store's directory", async () => {
    const parent = await realpath(await temporaryDirectory("hostile-ids"));
    const directory = join(parent, "deep", "store");
    await mkdir(join(parent, "deep", "outside"), { recursive: true });
    await writeFile(join(parent, "deep", "outside", "untouched"), "sentinel");
    const store = await openStore(pathToFileURL(directory).href);
    await exercise(store);
    await exercise(store.scope("tenant"));
    await store.close();

    // Only the store's directory was written, and every file in it is a plain file or directory inside it.
    expect((await readdir(parent)).sort()).toEqual(["deep"]);
    expect((await readdir(join(parent, "deep"))).sort()).toEqual(["outside", "store"]);
    expect(await readdir(join(parent, "deep", "outside"))).toEqual(["untouched"]);
    expect(await readFile(join(parent, "deep", "outside", "untouched"), "utf8")).toBe("sentinel");
    const files = await walk(directory);
    expect(files.length).toBeGreaterThan(ACCEPTED.length);
    for (const file of files) {
      const path = relative(directory, await realpath(file));
      expect(path.startsWith("..")).toBe(false);
      expect((await lstat(file)).isSymbolicLink()).toBe(false);
      // Names of 255 bytes or fewer, of characters safe on every file system.
      for (const part of path.split(sep)) {
        expect(Buffer.byteLength(part)).toBeLessThanOrEqual(255);
        expect(part).toMatch(/^[a-z0-9_%.~=-]+$/i);
      }
    }
    expect(existsSync(join(parent, escapeName))).toBe(false);
    expect(existsSync(join(tmpdir(), escapeName))).toBe(false);
  });

  it("postgres: stored apart, each as itself, every table in the store's schema", async () => {
    const schema = uniqueSchema("hostile-ids");
    // The server may be shared (DATABASE_URL): only tables that appear during the test are the store's.
    const before = new Set((await serverTables(postgres.url())).map((table) => table.join(".")));
    const store = await openStore(postgresStoreUrl(postgres.url(), schema));
    await exercise(store);
    await exercise(store.scope("tenant"));
    await store.close();
    const added = (await serverTables(postgres.url())).filter((table) => !before.has(table.join(".")));
    expect(added.map(([, table]) => table).sort()).toEqual([
      "skein_events",
      "skein_messages",
      "skein_meta",
      "skein_records",
      "skein_segments",
    ]);
    for (const [tableSchema] of added) expect(tableSchema).toBe(schema);
    await dropSchema(postgres.url(), schema);
  });

  it("redis: stored apart, each as itself, every key under the store's prefix", async () => {
    const prefix = uniquePrefix("hostile-ids");
    const store = await openStore(redisStoreUrl(server.url, prefix));
    await exercise(store);
    await exercise(store.scope("tenant"));
    await store.close();
    const keys = await allKeys(server.url);
    expect(keys.length).toBeGreaterThan(ACCEPTED.length);
    for (const key of keys) expect(key.startsWith(`${prefix}:`), key).toBe(true);
  });
});

async function walk(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    found.push(path);
    if (entry.isDirectory()) found.push(...(await walk(path)));
  }
  return found;
}
