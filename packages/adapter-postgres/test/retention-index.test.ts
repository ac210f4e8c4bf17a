import { databaseUrl } from "@skein/test-support/test-postgres";
import type { LogDriver } from "@skein/thread-core/driver";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";
import { sql, testSchemas } from "./test-sql.js";

const schemas = testSchemas();
const schema = schemas.schema;
afterAll(() => schemas.dropAll());

const PAST = "2020-01-01T00:00:00.000Z";

describe("postgres expiry index (schema 5)", () => {
  it("a sweep reads the expired threads through the index, never every record", async () => {
    const store = postgresStore({ url: databaseUrl(), schema: schema("expiry_reads") });
    for (let index = 0; index < 60; index += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, offset) => store.create({ id: `live-${index + offset}` })),
      );
    }
    const doomed = await store.create({ id: "doomed-a" });
    await doomed.update({ expiresAt: PAST });
    await store.create({ id: "doomed-b", expiresAt: PAST });
    await store.scope("tenant").create({ id: "doomed-c", expiresAt: PAST });
    const driver = store.driver as LogDriver;
    const list = driver.list.bind(driver);
    let listed = 0;
    driver.list = async (options) => {
      listed++;
      return list(options);
    };
    expect(await store.sweep()).toEqual({ examined: 2, deleted: 2, skipped: 0 });
    expect(listed).toBe(0);
    expect((await store.scope("tenant").sweep()).deleted).toBe(1);
    expect(await store.count()).toBe(60);
    await store.close();
  });

  it("migrates version 4 tables: a thread's own expiry is indexed", async () => {
    const name = schema("expiry_v4");
    const store = postgresStore({ url: databaseUrl(), schema: name });
    await store.create({ id: "doomed", expiresAt: PAST });
    await store.create({ id: "live" });
    await store.close();
    await sql(`ALTER TABLE "${name}"."skein_records" DROP COLUMN expires_at, DROP COLUMN log_end`);
    await sql(`UPDATE "${name}"."skein_meta" SET value = '4' WHERE name = 'schema_version'`);

    const migrated = postgresStore({ url: databaseUrl(), schema: name });
    expect(await migrated.count()).toBe(1);
    expect(await migrated.sweep()).toEqual({ examined: 1, deleted: 1, skipped: 0 });
    expect((await migrated.list()).items.map((item) => item.id)).toEqual(["live"]);
    await migrated.close();
  });
});
