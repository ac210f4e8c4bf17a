import { toMafSession } from "@skein/maf";
import type { ThreadState } from "@skein/thread-core";
import { UsageError } from "../cli/cli-error.js";
import type { CommandContext } from "../cli/command.js";

/** What `skein export --to` writes a thread as. */
export const MAF_TARGETS: Readonly<Record<string, "python" | "dotnet">> = {
  "maf-python": "python",
  "maf-dotnet": "dotnet",
};

/**
 * `skein export --to maf-python|maf-dotnet ID`: one thread as the MAF session its language's reader takes
 * (Python `AgentSession.from_dict` / `FileSessionStore`, .NET `ChatClientAgentSession`), as one JSON document.
 */
export async function exportMaf(context: CommandContext, target: string, ids: string[]): Promise<string> {
  const language = MAF_TARGETS[target];
  if (language === undefined)
    throw new UsageError(
      `--to takes ${Object.keys(MAF_TARGETS).join(" or ")}, not ${JSON.stringify(target)}`,
    );
  if (ids.length !== 1) throw new UsageError("--to maf-… writes one thread: give one id");
  const store = await context.store();
  // The exported state, not the bound thread: a local thread's export holds its whole history, and a remote one
  // (openai.responses, a2a) needs no client to give its ids.
  const state = await store.export(ids[0] as string);
  const session = await toMafSession(state as ThreadState, { language });
  return JSON.stringify(session);
}
