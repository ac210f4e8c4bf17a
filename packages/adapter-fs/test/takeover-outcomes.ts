// What the lock-takeover loops (clear and encrypted) share besides stopping the writer: the ways its lock
// is made to look to the taker, reading what the writer said it did, and ending it.
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { expect } from "vitest";
import { StoreLayout } from "../src/records/store-layout.js";
import { type collectOutput, exited, printed } from "./child-process.js";

/**
 * How the stopped writer's lock looks to the taker: as written on this host, or as written where its
 * owner cannot be checked (no start time: a system without /proc; the same holds for another host or
 * container sharing the directory). Such an owner may resume as well, so its lock is fenced the same way.
 */
export const OWNERS = {
  "on this host": () => {},
  "that cannot be checked": (lockPath: string) => {
    const content = JSON.parse(readFileSync(lockPath, "utf8")) as Record<string, unknown>;
    writeFileSync(lockPath, JSON.stringify({ ...content, started: undefined }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath, old, old);
  },
} satisfies Record<string, (lockPath: string) => void>;

/** The ids of the appender's output lines starting with `kind` ("ack", "lost", "unknown"). */
export function idsOf(stdout: string, kind: string): string[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith(`${kind} `))
    .flatMap((line) => line.slice(kind.length + 1).split(" "));
}

/** The `<kind> <name>` pairs of the record writer's output lines starting with `outcome`. */
export function changesOf(stdout: string, outcome: string): Array<{ kind: string; name: string }> {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith(`${outcome} `))
    .map((line) => {
      const [, kind = "", name = ""] = line.split(" ");
      return { kind, name };
    });
}

export function namesOf(changes: Array<{ kind: string; name: string }>, kind: string): string[] {
  return changes.filter((change) => change.kind === kind).map((change) => change.name);
}

/** Lets a looping writer go on, asks it to stop, and waits until it exited cleanly. */
export async function stopWriter(
  child: ChildProcess,
  output: ReturnType<typeof collectOutput>,
): Promise<void> {
  child.kill("SIGCONT");
  child.stdin?.write("stop\n");
  await printed(output, "done");
  expect(await exited(child)).toBe(0);
}

/** Ends a child that a failed test left running, stopped or not. */
export function killed(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
  }
}

/**
 * What a lock holding left in the locks directory: staging directories, tombstones, revoked directories,
 * staged files.
 */
export function stagingLeftovers(directory: string): string[] {
  return readdirSync(new StoreLayout(directory).locks).filter(
    (name) => name.endsWith(".staging") || name.endsWith(".revoked") || name.endsWith(".tmp"),
  );
}
