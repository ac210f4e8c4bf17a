import { execFileSync, spawnSync } from "node:child_process";

/**
 * vitest global setup for the tests that stop a process at one exact system call with strace (adapter-fs, faults). On a
 * fresh Debian machine where the tests run as root (CI), install Debian's strace once, as the Redis and
 * PostgreSQL setups install their servers; elsewhere that test says why it is skipped.
 */
export default function setup(): void {
  if (spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0) return;
  if (typeof process.getuid !== "function" || process.getuid() !== 0) {
    console.warn(
      "[skein tests] strace is not installed and we are not root: the strace kill tests are skipped",
    );
    return;
  }
  console.warn("[skein tests] installing Debian's strace with apt-get (once per machine)");
  const options = {
    stdio: ["ignore", "ignore", "inherit"] as ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  };
  try {
    execFileSync("apt-get", ["-o", "DPkg::Lock::Timeout=600", "update"], options);
    execFileSync(
      "apt-get",
      ["-o", "DPkg::Lock::Timeout=600", "install", "-y", "--no-install-recommends", "strace"],
      options,
    );
  } catch (error) {
    console.warn(`[skein tests] apt-get could not install strace (${(error as Error).message})`);
  }
}
