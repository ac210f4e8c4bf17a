import type { Thread } from "@skein/thread-core";

/** One round of a race: every contender makes this change with `{ ifRevision: revision }`. */
export interface RaceRound {
  round: number;
  revision: number;
  operation: "append" | "update" | "rollback";
  /** For a rollback: the message id this contender rolls back to. */
  target?: string | undefined;
}

/** Makes the round's change on `thread` as `writer`; says "won", or "lost <error name>". */
export async function raceOnce(thread: Thread, writer: string, round: RaceRound): Promise<string> {
  const options = { ifRevision: round.revision };
  try {
    if (round.operation === "append") {
      await thread.append({ id: `r${round.round}-${writer}`, role: "user", text: `${writer} won?` }, options);
    } else if (round.operation === "update") {
      await thread.update({ metadata: { round: round.round, writer } }, options);
    } else {
      await thread.rollback(round.target as string, options);
    }
    return "won";
  } catch (error) {
    return `lost ${error instanceof Error ? error.name : String(error)}`;
  }
}
