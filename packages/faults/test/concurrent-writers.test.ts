import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fileStore, postgresStore, redisStore, type SharedStore } from "./support/backends.js";
import { exited, printed, type RunningChild, runChild, startChild } from "./support/child-processes.js";
import { usePostgres } from "./support/test-postgres.js";
import { useRedis } from "./support/test-redis.js";

const WRITERS = 8;
const APPENDS = 250;
const READERS = 3;

const redis = useRedis();
const postgres = usePostgres();

describe.each([
  ["fs", () => fileStore("writers")],
  ["redis", async () => redisStore(redis.url(), "writers")],
  ["postgres", async () => postgresStore(postgres.url(), "writers")],
] as Array<[string, () => Promise<SharedStore>]>)(
  "%s: many processes appending to one thread",
  (name, open) => {
    it(`lands ${WRITERS} × ${APPENDS} appends once each, in one order every reader sees`, async () => {
      const shared = await open();
      const store = await openStore(shared.url);
      await store.create({ id: "shared" });
      await store.close();

      // One process keeps reading while the writers write: each snapshot must be a prefix of the final order.
      const watcher = startChild("watching-reader.ts", [shared.url, "shared"]);
      const writers: RunningChild[] = Array.from({ length: WRITERS }, (_, writer) =>
        startChild("sequential-writer.ts", [shared.url, "shared", `w${writer}`, String(APPENDS)]),
      );
      await Promise.all([watcher, ...writers].map((child) => printed(child, "ready")));
      const started = Date.now();
      for (const writer of writers) writer.process.stdin?.write("go\n");
      const codes = await Promise.all(writers.map((writer) => exited(writer.process)));
      const elapsed = Date.now() - started;
      watcher.process.stdin?.write("stop\n");
      expect(await exited(watcher.process)).toBe(0);
      expect(codes, writers.map((writer) => writer.output.stderr()).join("\n")).toEqual(
        Array(WRITERS).fill(0),
      );

      // Several processes read after: all see the same order.
      const readings = await Promise.all(
        Array.from({ length: READERS }, () => runChild("read-thread.ts", [shared.url, "shared"])),
      );
      const [first] = readings as [string];
      for (const reading of readings) expect(reading).toBe(first);
      const lines = first.trim().split("\n");
      const final = lines.slice(0, -1);
      expect(final).toHaveLength(WRITERS * APPENDS);
      expect(new Set(final).size).toBe(WRITERS * APPENDS);
      // One revision per append: no append was applied twice or lost after being counted.
      expect(lines.at(-1)).toBe(`revision ${WRITERS * APPENDS}`);

      for (const [index, writer] of writers.entries()) {
        const acknowledged = writer.output.lines().slice(1);
        expect(acknowledged).toHaveLength(APPENDS);
        // Each writer's messages keep the order it appended them in.
        expect(final.filter((id) => id.startsWith(`w${index}-`))).toEqual(acknowledged);
      }
      // The writers' appends really interleaved rather than running one after another.
      const switches = final.filter(
        (id, index) => index > 0 && id.split("-")[0] !== final[index - 1]?.split("-")[0],
      );
      expect(switches.length).toBeGreaterThan(APPENDS);

      const snapshots = watcher.output
        .lines()
        .slice(1)
        .map((line) => JSON.parse(line) as string[]);
      expect(snapshots.length).toBeGreaterThan(2);
      for (const snapshot of snapshots) expect(final.slice(0, snapshot.length)).toEqual(snapshot);
      console.info(
        `${name}: ${WRITERS * APPENDS} appends from ${WRITERS} processes in ${elapsed} ms, ${switches.length} writer switches, ${snapshots.length} snapshots read meanwhile`,
      );
      await shared.cleanup();
    });
  },
);
