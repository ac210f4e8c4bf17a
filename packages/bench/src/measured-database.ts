import { createClient } from "redis";

function clientFor(url: string) {
  return createClient({ url });
}

/** A Redis database a row measures: every key in it is the bench's. */
export interface MeasuredDatabase {
  url: string;
  client: ReturnType<typeof clientFor>;
  /** Deletes the row's keys (the database was empty before it) and disconnects. */
  release(): Promise<void>;
}

/**
 * Database `index` of the Redis at `redisUrl`, for a row that counts every key in it. REDIS_URL may be a
 * server someone uses: a database that holds keys is left alone (the row is skipped with a line on stderr),
 * so the bench never deletes keys it did not write.
 */
export async function emptyDatabase(redisUrl: string, index: number): Promise<MeasuredDatabase | undefined> {
  const url = new URL(redisUrl);
  url.pathname = `/${index}`;
  const client = clientFor(url.href);
  await client.connect();
  const keys = await client.dbSize();
  if (keys > 0) {
    process.stderr.write(
      `  Redis database ${index} holds ${keys} keys: its row is skipped (the bench measures an empty database and never wipes one)\n`,
    );
    await client.quit();
    return undefined;
  }
  return {
    url: url.href,
    client,
    release: async () => {
      await client.flushDb();
      await client.quit();
    },
  };
}
