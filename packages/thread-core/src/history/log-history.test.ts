import { describe, expect, it } from "vitest";
import { UnsupportedOperationError } from "../errors.js";
import { openStore } from "../store/open-store.js";
import { PlainStateThread } from "../store/plain-state-thread.js";
import { historyGraph } from "./history-graph.js";
import { forkTipOf, readLogState } from "./log-history.js";

const say = (id: string) => ({ id, role: "user" as const, text: id });

describe("reading a thread's history for its graph", () => {
  it("draws a log's checkpoints, rollback and forks from its export", async () => {
    const store = await openStore("memory:");
    const thread = await store.create({ id: "t" });
    await thread.append([say("a"), say("b")]);
    const checkpoint = await thread.checkpoint("two");
    await thread.append(say("c"));
    const fork = await thread.fork({ id: "f" });
    await fork.append(say("d"));
    await thread.rollback(checkpoint);

    const state = await readLogState(store, "t");
    expect(state).toMatchObject({ $type: "memory", id: "t", revision: thread.revision });
    const tip = await forkTipOf(fork, "t");
    expect(tip).toMatchObject({ id: "f", length: 4, last: { id: "d" } });
    const nodes = historyGraph(state, tip ? [tip] : []);
    const byLabel = (label: string) => nodes.find((node) => node.labels.some((text) => text.includes(label)));
    expect(nodes.find((node) => node.head)).toMatchObject({ position: 2, message: { id: "b" } });
    expect(byLabel("fork f")).toMatchObject({ position: 4, message: { id: "d" } });
    expect(byLabel("abandoned")).toMatchObject({ position: 3 });
    expect(byLabel(checkpoint.id)?.labels).toContain(`${checkpoint.id} "two"`);
    expect(nodes.at(-1)?.labels).toEqual(["start"]);
  });

  it("finds no fork tip in a thread that was not forked from the parent, or is not a log", async () => {
    const store = await openStore("memory:");
    const parent = await store.create({ id: "parent" });
    await parent.append(say("a"));
    const other = await store.create({ id: "other" });
    const fork = await parent.fork({ id: "fork" });
    const workflow = await store.create("workflow", { threads: ["main"] });
    const plain = new PlainStateThread({ $type: "acme.note", id: "note" }, store);
    expect(await forkTipOf(other, "parent")).toBeUndefined();
    expect(await forkTipOf(fork, "another-parent")).toBeUndefined();
    expect(await forkTipOf(workflow, "parent")).toBeUndefined();
    expect(await forkTipOf(plain, "parent")).toBeUndefined();
  });

  it("refuses the history of a thread that is not a log of segments", async () => {
    const store = await openStore("memory:");
    const workflow = await store.create("workflow", { threads: ["main"] });
    await expect(readLogState(store, workflow.id)).rejects.toSatisfy(
      (error) => UnsupportedOperationError.isInstance(error) && /not a log of segments/.test(String(error)),
    );
  });
});
