import { databaseUrl, dropSchema, uniqueSchema } from "@skein/test-support/test-postgres";
import pg from "pg";

/** One statement on a connection of its own, outside any store: what a test sets up or inspects. */
export async function sql<Row = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client(databaseUrl());
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** Unique schema names for a test file, each dropped by `dropAll` (call it in `afterAll`). */
export function testSchemas() {
  const made: string[] = [];
  return {
    schema(name: string): string {
      const schema = uniqueSchema(name);
      made.push(schema);
      return schema;
    },
    async dropAll(): Promise<void> {
      for (const schema of made) await dropSchema(schema);
    },
  };
}

/** Every row of every table of `schema`, as its text (`row::text`), with the table it is in. */
export async function rowTexts(schema: string): Promise<Array<{ table: string; text: string }>> {
  const tables = await sql<{ table_name: string }>(
    "select table_name from information_schema.tables where table_schema = $1",
    [schema],
  );
  if (tables.length === 0) throw new Error(`schema ${schema} has no tables`);
  const texts: Array<{ table: string; text: string }> = [];
  for (const { table_name: table } of tables) {
    const rows = await sql<{ row: string }>(`select t::text as row from "${schema}"."${table}" t`);
    for (const row of rows) texts.push({ table, text: row.row });
  }
  return texts;
}
