import { type HistoryNode, historyGraph, readLogState } from "@skein/thread-core/driver";
import type { Command } from "../cli/command.js";
import { booleanOption, noMoreArguments, requiredArgument } from "../cli/option-values.js";
import { findForks, logLines } from "../history/thread-log.js";

export const logCommand: Command = {
  name: "log",
  summary: "Draw a thread's branches, rollbacks and checkpoints as a tree",
  usage: "log <id> [--forks]",
  description: [
    "Like `git log --graph`, newest first: each `*` is a point of the thread's log with the number of messages up to it (#N, the numbering of `skein show`), what happened there, and its last message. HEAD is the thread's end; a rollback leaves the abandoned messages as a branch of their own (rN is the revision the rollback made); `forked from` marks where a fork left its parent.",
    "--forks also finds threads forked from this one (it reads every thread in the store: slow on large stores).",
  ].join("\n\n"),
  options: {
    forks: { type: "boolean", description: "also draw the threads forked from this one" },
  },
  examples: ["skein log support-42", "skein log support-42 --forks --json"],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    noMoreArguments(context, 1);
    const store = await context.store();
    const state = await readLogState(store, id);
    const forks = booleanOption(context, "forks") ? await findForks(store, id) : [];
    const nodes = historyGraph(state, forks);
    if (context.json) {
      const length = nodes.find((node) => node.head)?.position ?? 0;
      return context.stdout.json({ id, length, events: state.events, nodes: nodes.map(jsonNode) });
    }
    for (const line of logLines(nodes)) await context.stdout.line(line);
  },
};

function jsonNode(node: HistoryNode) {
  return {
    key: node.key,
    position: node.position,
    ...(node.segment === undefined ? {} : { segment: node.segment, offset: node.offset }),
    parent: node.parent ?? null,
    head: node.head,
    labels: node.labels,
    messageId: node.message?.id ?? null,
  };
}
