import { PLANTED_MARKER, plantMarkers, testEncryption } from "@skein/test-support/encryption-markers";
import { databaseUrl } from "@skein/test-support/test-postgres";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";
import { rowTexts, testSchemas } from "./test-sql.js";

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

/** The tables of `schema` with a row whose text holds the marker. */
async function tablesWithMarker(schema: string): Promise<string[]> {
  const found = (await rowTexts(schema)).filter(({ text }) => text.includes(PLANTED_MARKER));
  return [...new Set(found.map(({ table }) => table))];
}

describe("an encrypted postgres store", () => {
  it("keeps no planted plaintext in any row of any table", async () => {
    const schema = schemas.schema("encrypted_scan");
    const store = postgresStore({ url: databaseUrl(), schema, encryption: testEncryption() });
    await plantMarkers(store);
    await store.close();
    expect(await tablesWithMarker(schema)).toEqual([]);
  });

  it("(the scan sees plaintext: the same threads in a store without encryption leave the marker in rows)", async () => {
    const schema = schemas.schema("plain_scan");
    const store = postgresStore({ url: databaseUrl(), schema });
    await plantMarkers(store);
    await store.close();
    expect((await tablesWithMarker(schema)).length).toBeGreaterThan(0);
  });
});
