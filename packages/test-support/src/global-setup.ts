// The vitest global setup that skein's packages share: it starts the servers a package's tests need and gives
// their URLs to the tests through `inject(...)`. Run alone (`npx vitest run`), a package starts Debian's
// redis-server / PostgreSQL on free loopback ports and stops them afterwards; the root `npm test` sets
// REDIS_URL / DATABASE_URL to servers it started once, and these are used instead.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { startPostgres } from "../../../scripts/postgres-server.mjs";
import { assertRedisInstalled, startRedis, startRedisCluster } from "../../../scripts/redis-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** A single redis-server: REDIS_URL, or one started for this run; "" when `redis: "optional"` found none. */
    redisUrl: string;
    /** A 3-master Redis Cluster, `redis://host:port?cluster=true`: REDIS_CLUSTER_URL, or one started for this run. */
    redisClusterUrl: string;
    /** A PostgreSQL server: DATABASE_URL, or one started for this run. */
    databaseUrl: string;
  }
}

export interface GlobalSetupOptions {
  /**
   * Provide `redisUrl`. `"optional"`: without redis-server the tests get "" and skip their Redis cases, saying
   * what they need.
   * @default false
   */
  redis?: boolean | "optional";
  /**
   * Provide `redisUrl` and `redisClusterUrl` (a 3-master cluster unless REDIS_CLUSTER_URL is set), and require
   * redis-server even when both URLs are set: tests that stop a server of their own need it.
   * @default false
   */
  redisCluster?: boolean;
  /** Provide `databaseUrl`, installing PostgreSQL with apt-get when it is missing and we are root. @default false */
  postgres?: boolean;
  /** Files that must exist before any test runs, e.g. a built `dist/bin.js` the tests execute. @default [] */
  built?: ReadonlyArray<string | URL>;
}

type Teardown = () => Promise<void>;
export type GlobalSetup = (project: TestProject) => Promise<Teardown>;

/**
 * The global setup a package's `test/global-setup.ts` exports.
 * @example export default globalSetup({ redis: true, postgres: true });
 */
export function globalSetup(options: GlobalSetupOptions): GlobalSetup {
  return async (project) => {
    requireBuilt(options.built ?? []);
    const stops: Teardown[] = [];
    try {
      await Promise.all([
        provideRedis(project, options, stops),
        options.postgres ? providePostgres(project, stops) : undefined,
      ]);
    } catch (error) {
      await stopAll(stops);
      throw error;
    }
    return () => stopAll(stops);
  };
}

/** Throws one line naming the first missing file and how to build it. */
export function requireBuilt(files: ReadonlyArray<string | URL>): void {
  for (const file of files) {
    const path = file instanceof URL ? fileURLToPath(file) : file;
    if (!existsSync(path))
      throw new Error(
        `${path} is missing: these tests use the build. Build first: npm run build (at the repository root).`,
      );
  }
}

async function provideRedis(
  project: TestProject,
  options: GlobalSetupOptions,
  stops: Teardown[],
): Promise<void> {
  if (options.redisCluster) {
    assertRedisInstalled();
    const [single, cluster] = await Promise.all([
      startRedis().then((server) => owned(server, stops)),
      process.env.REDIS_CLUSTER_URL
        ? undefined
        : startRedisCluster({ masters: 3 }).then((server) => owned(server, stops)),
    ]);
    project.provide("redisUrl", single.url);
    project.provide("redisClusterUrl", process.env.REDIS_CLUSTER_URL ?? (cluster?.url as string));
    return;
  }
  if (!options.redis) return;
  // Optional: no redis-server here means "", and the Redis cases skip, saying what they need.
  const server = await (options.redis === "optional" ? startRedis().catch(() => undefined) : startRedis());
  if (server) owned(server, stops);
  project.provide("redisUrl", server?.url ?? "");
}

async function providePostgres(project: TestProject, stops: Teardown[]): Promise<void> {
  const server = owned(await startPostgres({ install: true }), stops);
  project.provide("databaseUrl", server.url);
}

/** Records that `server` is to be stopped at the end (or when a sibling fails to start), and returns it. */
function owned<Server extends { stop(): Promise<void> }>(server: Server, stops: Teardown[]): Server {
  stops.push(() => server.stop());
  return server;
}

async function stopAll(stops: Teardown[]): Promise<void> {
  await Promise.all(stops.splice(0).map((stop) => stop()));
}
