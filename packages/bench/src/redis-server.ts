import { startRedis } from "../../../scripts/redis-server.mjs";

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
