import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  PLANTED_MARKER,
  plantMarkers,
  plantStreamingReply,
  testEncryption,
} from "@skein/test-support/encryption-markers";
import { databaseUrl } from "@skein/test-support/test-postgres";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";
import { sql, testSchemas } from "./test-sql.js";

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

/** The tables of `schema` with a row whose text holds `text`. */
async function tablesWith(schema: string, text: string): Promise<string[]> {
  const tables = await sql<{ table_name: string }>(
    "select table_name from information_schema.tables where table_schema = $1",
    [schema],
  );
  if (tables.length === 0) throw new Error(`schema ${schema} has no tables`);
  const found: string[] = [];
  for (const { table_name: table } of tables) {
    const rows = await sql<{ row: string }>(`select t::text as row from "${schema}"."${table}" t`);
    if (rows.some((row) => row.row.includes(text))) found.push(table);
  }
  return found;
}

/**
 * The files of the schema's tables, their indexes and TOAST tables (every 1 GB segment of each) whose
 * bytes hold `text`: dead tuples included, which no SELECT shows. Read as the server's files, so only when
 * the test runs as a user that may read the data directory (root here); else undefined.
 */
async function relationFilesWith(schema: string, text: string): Promise<string[] | undefined> {
  const [setting] = await sql<{ directory: string }>("select current_setting('data_directory') as directory");
  const directory = setting?.directory ?? "";
  const relations = await sql<{ path: string }>(
    `select pg_relation_filepath(c.oid) as path from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1
     union select pg_relation_filepath(c.reltoastrelid) from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.reltoastrelid <> 0
     union select pg_relation_filepath(i.indexrelid) from pg_index i join pg_class t on t.oid = i.indrelid
      join pg_class c on c.oid = t.reltoastrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1`,
    [schema],
  );
  const found: string[] = [];
  for (const { path } of relations) {
    if (!path) continue;
    for (let segment = 0; ; segment++) {
      let bytes: Buffer;
      try {
        bytes = await readFile(join(directory, segment === 0 ? path : `${path}.${segment}`));
      } catch (error) {
        if ((error as { code?: string }).code === "EACCES") return undefined;
        break; // no such segment: the relation ends here
      }
      if (bytes.includes(text)) found.push(path);
    }
  }
  return found;
}

describe("store.erase on a postgres store", () => {
  for (const encrypted of [false, true]) {
    it(`leaves no row, and after the VACUUM FULL it asks for no table file, with the owner's data${encrypted ? " (encrypted)" : ""}`, async () => {
      const schema = schemas.schema(encrypted ? "erasure_encrypted" : "erasure_plain");
      const store = postgresStore({
        url: databaseUrl(),
        schema,
        ...(encrypted ? { encryption: testEncryption() } : {}),
      });
      try {
        await store.create({ id: "kept", owner: "owner-2" }); // a thread whose owner sorts near the erased one
        await plantMarkers(store);
        await plantMarkers(store.scope("tenant-a"));
        await plantStreamingReply(store);
        if (!encrypted) {
          expect((await tablesWith(schema, PLANTED_MARKER)).length).toBeGreaterThan(0);
          await sql("checkpoint"); // the scan of files sees the marker once pages are written out
          const before = await relationFilesWith(schema, PLANTED_MARKER);
          if (before !== undefined) expect(before.length).toBeGreaterThan(0);
        }
        const report = await store.erase({ owner: "owner-1" });
        expect(report.threads).toBe(5);
        expect(report.followUp).toMatch(/^run VACUUM FULL /);
        expect((await store.list()).items.map((item) => item.id)).toEqual(["kept"]);
        // Rows are gone at once; the files keep dead tuples until the step the report names.
        expect(await tablesWith(schema, PLANTED_MARKER)).toEqual([]);
        expect(await tablesWith(schema, "owner-1")).toEqual([]);
        // Without the step the report names, the dead tuples are still in the files (when they can be read).
        await sql("checkpoint");
        const dead = await relationFilesWith(schema, PLANTED_MARKER);
        if (dead !== undefined && !encrypted) expect(dead.length).toBeGreaterThan(0);
        await sql(`${(report.followUp ?? "").match(/^run (VACUUM FULL [^(]+)/)?.[1]}`);
        await sql("checkpoint");
        const files = await relationFilesWith(schema, PLANTED_MARKER);
        if (files !== undefined) expect(files).toEqual([]);
        const owners = await relationFilesWith(schema, "owner-1");
        if (owners !== undefined) expect(owners).toEqual([]);
      } finally {
        await store.close();
      }
    });
  }
});
