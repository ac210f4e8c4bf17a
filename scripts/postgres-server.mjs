// The one way skein's tests get a throw-away PostgreSQL: Debian's server binaries (/usr/lib/postgresql/<ver>/bin)
// on a free loopback port, with a data directory in a temporary directory that is removed on stop. PostgreSQL
// refuses to run as root, so as root the server runs as `nobody` with the directory handed to it. Plain ESM
// without a build step, like redis-server.mjs; types are in postgres-server.d.mts.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./redis-server.mjs";

const INSTALL_HINT = "install Debian's postgresql (apt-get install postgresql) or set DATABASE_URL";
const ROOT = "/usr/lib/postgresql";
/** `nobody` on Debian: an unprivileged user every system has. */
const UNPRIVILEGED = { uid: 65534, gid: 65534 };

/** The bin directory of the newest installed server, or undefined. */
export function postgresBinDirectory() {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT)
    .filter((name) => existsSync(join(ROOT, name, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(ROOT, versions[0], "bin") : undefined;
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

function installWithApt(log) {
  if (!isRoot()) {
    log("postgresql is not installed, and we are not root, so we cannot apt-get it");
    return;
  }
  log("installing Debian's postgresql with apt-get (once per machine)");
  const options = {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  };
  try {
    execFileSync("apt-get", ["update"], options);
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "postgresql"], options);
  } catch (error) {
    log(`apt-get could not install postgresql (${error.message})`);
  }
}

const delay = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * A PostgreSQL server this caller owns: `initdb` (trust auth for the loopback only, user `skein`), then
 * `postgres -k <socket dir> -h 127.0.0.1 -p <port>`, fsync off (a test server keeps nothing). Resolves once
 * `pg_isready` answers; rejects with one line when it cannot start.
 */
export async function startPostgresServer({ log = () => {}, install = false } = {}) {
  let bin = postgresBinDirectory();
  if (!bin && install) {
    installWithApt(log);
    bin = postgresBinDirectory();
  }
  if (!bin) throw new Error(`PostgreSQL is not installed: ${INSTALL_HINT}`);
  const directory = mkdtempSync(join(tmpdir(), "skein-postgres-"));
  const data = join(directory, "data");
  const owner = isRoot() ? UNPRIVILEGED : {};
  if (isRoot()) {
    chownSync(directory, UNPRIVILEGED.uid, UNPRIVILEGED.gid);
    chmodSync(directory, 0o700);
  }
  const quiet = { stdio: ["ignore", "ignore", "pipe"], ...owner };
  try {
    execFileSync(
      join(bin, "initdb"),
      ["-D", data, "-U", "skein", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"],
      quiet,
    );
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw new Error(
      `initdb failed: ${String(error.stderr ?? error.message)
        .trim()
        .split("\n")
        .at(-1)}`,
    );
  }
  const port = await freePort();
  const args = [
    "-D",
    data,
    "-k",
    directory,
    "-h",
    "127.0.0.1",
    "-p",
    String(port),
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "max_connections=400",
  ];
  const child = spawn(join(bin, "postgres"), args, { stdio: "ignore", ...owner });
  let spawnError;
  child.once("error", (error) => {
    spawnError = error;
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      execFileSync(join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port), "-U", "skein", "-q"], {
        stdio: "ignore",
      });
      break;
    } catch {
      const exited = child.exitCode !== null || child.signalCode !== null;
      if (spawnError || exited || Date.now() > deadline) {
        child.kill("SIGKILL");
        rmSync(directory, { recursive: true, force: true });
        throw new Error(
          `postgres on port ${port} did not start (${spawnError?.message ?? child.exitCode ?? "no answer in 30 s"}): ${INSTALL_HINT}`,
        );
      }
      await delay(50);
    }
  }
  log(`postgres ${port} started for this run`);
  return {
    port,
    url: `postgres://skein@127.0.0.1:${port}/postgres`,
    directory,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        // SIGINT: "fast" shutdown, clients disconnected at once.
        child.kill("SIGINT");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** DATABASE_URL when set ("use mine"), else a server of our own. */
export async function startPostgres({ log = () => {}, install = false } = {}) {
  if (process.env.DATABASE_URL) {
    log("using DATABASE_URL from the environment");
    return { url: process.env.DATABASE_URL, stop: async () => {} };
  }
  const server = await startPostgresServer({ log, install });
  return { url: server.url, stop: () => server.stop() };
}
