import { startRedis, startRedisCluster } from "../../../scripts/redis-server.mjs";

/** Runs `work` with a Redis URL: REDIS_URL, or a throw-away loopback redis-server; undefined when neither. */
export async function withRedis(work: (url: string | undefined) => Promise<void>): Promise<void> {
  const log = (line: string) => process.stderr.write(`  ${line}\n`);
  const redis = await startRedis({ log }).catch((error: Error) => {
    log(`no Redis for the Redis rows: ${error.message}`);
    return undefined;
  });
  try {
    await work(redis?.url);
  } finally {
    await redis?.stop();
  }
}

/**
 * Runs `work` with the URL of a throw-away 3-master Redis Cluster on loopback, or undefined (saying why on
 * stderr) when one cannot be started here.
 */
export async function withRedisCluster(work: (url: string | undefined) => Promise<void>): Promise<void> {
  const cluster = await startRedisCluster({ masters: 3 }).catch((error: Error) => {
    process.stderr.write(`  no Redis Cluster for the cluster rows: ${error.message.split("\n")[0]}\n`);
    return undefined;
  });
  try {
    await work(cluster?.url);
  } finally {
    await cluster?.stop();
  }
}
