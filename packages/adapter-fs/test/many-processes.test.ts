import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { collectOutput, exited, printed, runChild, startChild } from "./child-process.js";

const WRITERS = 4;
const APPENDS = 200;

describe("many processes writing one thread", () => {
  it(`lands ${WRITERS} × ${APPENDS} appends once each, in one order every reader sees`, async () => {
    const directory = join(await temporaryDirectory(), "store");
    const store = fsStore({ directory });
    const thread = await store.create({ id: "shared" });

    // While the writers run, this process keeps reading: every snapshot must be a prefix of the final order.
    const snapshots: string[][] = [];
    let writing = true;
    const reading = (async () => {
      while (writing) {
        snapshots.push((await thread.messages()).map((message) => message.id));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const writers = Array.from({ length: WRITERS }, (_, writer) =>
      startChild("append-writer.ts", [directory, "shared", `w${writer}`, String(APPENDS)]),
    );
    const collected = writers.map((writer) => collectOutput(writer));
    // All open the thread first, then start together, so that their appends really contend.
    await Promise.all(collected.map((output) => printed(output, "ready")));
    for (const writer of writers) writer.stdin?.write("go\n");
    const codes = await Promise.all(writers.map((writer) => exited(writer)));
    writing = false;
    await reading;

    const reader = fsStore({ directory });
    const final = (await (await reader.get("shared")).messages()).map((message) => message.id);
    await reader.close();
    expect(final).toHaveLength(WRITERS * APPENDS);
    expect(new Set(final).size).toBe(WRITERS * APPENDS);
    expect(codes).toEqual(Array(WRITERS).fill(0));
    for (const [writer, output] of collected.entries()) {
      const acknowledged = output.stdout().trim().split("\n").slice(1);
      expect(acknowledged).toHaveLength(APPENDS);
      // Each writer's own messages keep the order it appended them in.
      expect(final.filter((id) => id.startsWith(`w${writer}-`))).toEqual(acknowledged);
    }
    // Writers took turns (the lock hands over to waiting processes) rather than running one after another.
    const switches = final.filter(
      (id, index) => index > 0 && id.slice(0, 2) !== final[index - 1]?.slice(0, 2),
    );
    expect(switches.length).toBeGreaterThan(APPENDS / 2);

    expect(snapshots.length).toBeGreaterThan(1);
    for (const snapshot of snapshots) expect(final.slice(0, snapshot.length)).toEqual(snapshot);
    const [firstReader, secondReader] = await Promise.all([
      runChild("read-thread.ts", [directory, "shared"]),
      runChild("read-thread.ts", [directory, "shared"]),
    ]);
    expect(firstReader.trim().split("\n")).toEqual(final);
    expect(secondReader.trim().split("\n")).toEqual(final);
    expect((await thread.messages()).length).toBe(WRITERS * APPENDS);
    await store.close();
    // Generous: 18 s measured on a loaded 2-core machine; writers are child processes.
  }, 300_000);
});
