import { openStore } from "@skein/thread-core";
import { historyGraph, type LogState, LogStateSchema } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { drawGraph } from "./draw-graph.js";

describe("historyGraph", () => {
  it("draws rollbacks as abandoned branches and forks as tips, HEAD first", async () => {
    const store = await openStore("memory:");
    const thread = await store.create({ id: "t" });
    await thread.append([
      { role: "user", text: "one" },
      { role: "assistant", text: "two" },
    ]);
    const first = await thread.checkpoint("first");
    await thread.append({ role: "user", text: "three" });
    const fork = await thread.fork({ id: "f" });
    await fork.append({ role: "assistant", text: "fork four" });
    await thread.rollback(first);
    await thread.append({ role: "user", text: "three again" });
    const state = LogStateSchema.parse(await store.export("t")) as LogState;

    const nodes = historyGraph(state, [
      { id: "f", from: { segment: state.segments[0]?.id ?? "", offset: 3 }, length: 4 },
    ]);
    const lines = drawGraph(
      nodes.map((node) => ({
        key: node.key,
        parent: node.parent,
        text: `#${node.position} ${node.labels.join(", ")}`,
      })),
    );
    expect(lines).toEqual([
      "* #3 HEAD",
      "| * #4 fork f",
      "| * #3 r4: abandoned",
      "|/",
      `* #2 ${first.id} "first", r4: rolled back here from #3`,
      "* #0 start",
    ]);
    expect(nodes.find((node) => node.head)?.message?.contents[0]).toMatchObject({ text: "three again" });
  });

  it("gives an empty thread one node, its start", async () => {
    const store = await openStore("memory:");
    await store.create({ id: "empty" });
    const nodes = historyGraph(LogStateSchema.parse(await store.export("empty")) as LogState);
    expect(nodes.map((node) => [node.position, node.labels])).toEqual([[0, ["HEAD", "start"]]]);
  });
});
