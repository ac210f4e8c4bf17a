// @ts-expect-error the test runner's helper is plain JavaScript without types
import { startRedis } from "../../../scripts/redis-server.mjs";

/** Runs `work` with a Redis URL: REDIS_URL, or a throw-away loopback redis-server; undefined when neither. */
export async function withRedis(work: (url: string | undefined) => Promise<void>): Promise<void> {
  const redis = (await startRedis({ log: (line: string) => process.stderr.write(`  ${line}\n`) })) as {
    url?: string;
    stop: () => Promise<void>;
  };
  try {
    await work(redis.url);
  } finally {
    await redis.stop();
  }
}
