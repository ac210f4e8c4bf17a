import type { Command } from "../cli/command.js";
import { integerOption, noMoreArguments, requiredArgument } from "../cli/option-values.js";
import { plural } from "../format/plural.js";
import { branchingThread } from "../store/branching-thread.js";
import { messageCount } from "../store/local-thread-access.js";

export const switchCommand: Command = {
  name: "switch",
  summary: "Make a version of a message (and the branch behind it) current again",
  usage: "switch <id> <version> [--if-revision N]",
  description:
    "The thread continues on the branch behind the version, as it was when last left; the branch left becomes a version in its turn, so nothing is lost. `skein alternatives` lists the versions.",
  options: {
    "if-revision": {
      type: "string",
      placeholder: "N",
      description: "switch only if the thread is still at revision N (else exit 4)",
    },
  },
  examples: ["skein switch support-42 01JD8X3Q4V6Y9Z0B1C2D3E4F5G"],
  async run(context) {
    const id = requiredArgument(context, 0, "id");
    const versionId = requiredArgument(context, 1, "version");
    noMoreArguments(context, 2);
    const ifRevision = integerOption(context, "if-revision", 0);
    const thread = branchingThread(await (await context.store()).get(id), "switch");
    await thread.switchTo(versionId, ifRevision === undefined ? {} : { ifRevision });
    const versions = await thread.alternatives(versionId);
    const index = versions.findIndex((version) => version.current);
    const length = await messageCount(thread);
    if (context.json) {
      return context.stdout.json({
        id: thread.id,
        version: versionId,
        index,
        versions: versions.length,
        length,
        revision: thread.revision,
      });
    }
    await context.stdout.line(
      `switched ${thread.id} to ${versionId}, version ${index + 1} of ${versions.length}: ${plural(length, "message")}`,
    );
  },
};
