// Types for postgres-server.mjs, so that TypeScript tests import it checked.
import type { ChildProcess } from "node:child_process";

/** A PostgreSQL server the caller started and owns. */
export interface PostgresServer {
  port: number;
  /** `postgres://skein@127.0.0.1:<port>/postgres` (trust authentication, loopback only) */
  url: string;
  /** The temporary directory of its data and socket, removed by `stop()`. */
  directory: string;
  readonly process: ChildProcess;
  /** A fast shutdown (SIGINT, SIGKILL after 10 s), then the directory removed. */
  stop(): Promise<void>;
}

/** The bin directory of the newest installed server (/usr/lib/postgresql/<ver>/bin), or undefined. */
export function postgresBinDirectory(): string | undefined;

/** A server of this caller's; `install` lets it apt-get postgresql when missing and root. */
export function startPostgresServer(options?: {
  log?: (line: string) => void;
  install?: boolean;
}): Promise<PostgresServer>;

/** DATABASE_URL when set, else a server of our own; `stop` stops only a server it started. */
export function startPostgres(options?: {
  log?: (line: string) => void;
  install?: boolean;
}): Promise<{ url: string; stop: () => Promise<void> }>;
