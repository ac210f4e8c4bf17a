// Debian's chromium for the browser tests: found at /usr/bin/chromium, installed with apt-get when it is
// missing and we are root (Playwright's own browser download cannot work here), like redis-server.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Installs Debian's chromium when it is missing and we may; throws one line saying what to do otherwise. */
export function ensureChromium(log: (line: string) => void = console.log): void {
  if (existsSync(CHROMIUM)) return;
  if (typeof process.getuid !== "function" || process.getuid() !== 0)
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  log("installing Debian's chromium with apt-get (once per machine)");
  const options = {
    stdio: ["ignore", "ignore", "inherit"] as const,
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  };
  const install = () =>
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], {
      ...options,
      stdio: [...options.stdio],
    });
  try {
    install();
  } catch {
    // The package lists may be missing or stale on a fresh machine.
    execFileSync("apt-get", ["update"], { ...options, stdio: [...options.stdio] });
    install();
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get ran, but ${CHROMIUM} is still missing`);
}

/**
 * Starts headless chromium. Playwright gives each launch a fresh, temporary profile; the flags stop
 * background traffic (this machine's network is closed, and chromium keeps trying to reach Google).
 */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
