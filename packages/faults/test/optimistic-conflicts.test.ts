import { openStore, type Thread, type ThreadStore } from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { fileStore, redisStore, type SharedStore } from "./support/backends.js";
import { printed, type RunningChild, startChild, until } from "./support/child-processes.js";
import { type RaceRound, raceOnce } from "./support/conditional-change.js";
import { useRedis } from "./support/test-redis.js";

const ROUNDS = 25;
const PROCESSES = 4;
const HANDLES = 12;
/** Every fifth round is a rollback, every fourth an update; the rest append. */
const operationOf = (round: number): RaceRound["operation"] =>
  round % 5 === 4 ? "rollback" : round % 4 === 3 ? "update" : "append";

/** Someone racing for the thread: a process, or a handle of its own store in this process. */
interface Contender {
  name: string;
  /** Re-reads the thread, as a writer does before deciding on a rollback target. */
  refresh(round: number): Promise<void>;
  race(round: RaceRound): Promise<string>;
}

function processContender(child: RunningChild, name: string): Contender {
  const answer = async (line: string, round: number) => {
    const prefix = `${round} `;
    const answers = () => child.output.lines().filter((output) => output.startsWith(prefix));
    const before = answers().length;
    child.process.stdin?.write(`${line}\n`);
    await until(() => answers().length > before, `${name}'s answer to ${JSON.stringify(line)}`);
    return (answers().at(-1) as string).slice(prefix.length);
  };
  return {
    name,
    refresh: async (round) => {
      await answer(`${round} refresh`, round);
    },
    race: (round) =>
      answer(`${round.round} ${round.revision} ${round.operation} ${round.target ?? ""}`, round.round),
  };
}

function handleContender(thread: Thread, name: string): Contender {
  return { name, refresh: () => thread.refresh(), race: (round) => raceOnce(thread, name, round) };
}

/** Brings the thread to at least `length` messages, so rollbacks always have targets to choose from. */
async function refill(thread: Thread, length: number, round: number): Promise<void> {
  const count = (await thread.messages()).length;
  if (count >= length) return;
  await thread.append(
    Array.from({ length: length - count }, (_, index) => ({
      id: `fill-${round}-${index}`,
      role: "user" as const,
      text: "filler",
    })),
  );
}

/** Runs ROUNDS rounds in which every contender makes the same change with the same `ifRevision`. */
async function race(observer: Thread, contenders: Contender[]): Promise<Record<string, number>> {
  const wins: Record<string, number> = {};
  for (let round = 0; round < ROUNDS; round++) {
    await refill(observer, contenders.length + 2, round);
    await observer.refresh();
    const revision = observer.revision as number;
    const before = (await observer.messages()).map((message) => message.id);
    const eventsBefore = (await observer.history()).length;
    const operation = operationOf(round);
    const targetOf = (index: number) => before[before.length - 2 - index];
    // Every contender reads the thread before a rollback, so that each knows its target (a handle that has
    // not seen a message cannot roll back to it: see stale-handle-rollback.test.ts).
    if (operation === "rollback") await Promise.all(contenders.map((contender) => contender.refresh(round)));
    const outcomes = await Promise.all(
      contenders.map((contender, index) =>
        contender.race({
          round,
          revision,
          operation,
          ...(operation === "rollback" ? { target: targetOf(index) } : {}),
        }),
      ),
    );
    // Exactly one wins each round; every other gets a ConcurrencyError.
    const winners = outcomes.flatMap((outcome, index) => (outcome === "won" ? [index] : []));
    expect(winners, `round ${round} (${operation}): ${outcomes.join(", ")}`).toHaveLength(1);
    const winner = winners[0] as number;
    for (const [index, outcome] of outcomes.entries())
      if (index !== winner) expect(outcome).toBe("lost ConcurrencyError");
    wins[operation] = (wins[operation] ?? 0) + 1;

    // The winner's change is the only change: one revision, and nothing from the losers.
    await observer.refresh();
    expect(observer.revision).toBe(revision + 1);
    const after = (await observer.messages()).map((message) => message.id);
    const name = contenders[winner]?.name as string;
    if (operation === "append") expect(after).toEqual([...before, `r${round}-${name}`]);
    if (operation === "update") {
      expect(after).toEqual(before);
      expect(observer.metadata).toEqual({ round, writer: name });
    }
    if (operation === "rollback") {
      const target = targetOf(winner) as string;
      expect(after).toEqual(before.slice(0, before.indexOf(target) + 1));
      const events = await observer.history();
      expect(events).toHaveLength(eventsBefore + 1);
      expect(events.at(-1)).toMatchObject({ kind: "rollback", target });
    } else {
      expect(await observer.history()).toHaveLength(eventsBefore);
    }
  }
  return wins;
}

const redis = useRedis();
const opened: ThreadStore[] = [];
afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function open(url: string): Promise<ThreadStore> {
  const store = await openStore(url);
  opened.push(store);
  return store;
}

describe("memory: racing ifRevision writers", () => {
  it(`${HANDLES} concurrent handles: exactly one wins each of ${ROUNDS} rounds, the losers write nothing`, async () => {
    const store = await open("memory:");
    const observer = await store.create({ id: "contested" });
    const contenders = await Promise.all(
      Array.from({ length: HANDLES }, async (_, index) =>
        handleContender(await store.get(observer.id), `h${index}`),
      ),
    );
    console.info(
      `memory, ${HANDLES} handles: wins by operation ${JSON.stringify(await race(observer, contenders))}`,
    );
  });
});

describe.each([
  ["fs", () => fileStore("conflicts")],
  ["redis", async () => redisStore(redis.url(), "conflicts")],
] as Array<[string, () => Promise<SharedStore>]>)("%s: racing ifRevision writers", (name, shared) => {
  it(`${PROCESSES} processes: exactly one wins each of ${ROUNDS} rounds, the losers write nothing`, async () => {
    const { url, cleanup } = await shared();
    const observer = await (await open(url)).create({ id: "contested" });
    const children = Array.from({ length: PROCESSES }, (_, index) =>
      startChild("conditional-writer.ts", [url, observer.id, `p${index}`]),
    );
    try {
      await Promise.all(children.map((child) => printed(child, "ready")));
      const wins = await race(
        observer,
        children.map((child, index) => processContender(child, `p${index}`)),
      );
      console.info(`${name}, ${PROCESSES} processes: wins by operation ${JSON.stringify(wins)}`);
    } finally {
      for (const child of children) child.process.stdin?.end();
    }
    await cleanup();
  });

  it(`${HANDLES} handles, each on its own store: exactly one wins each of ${ROUNDS} rounds`, async () => {
    const { url, cleanup } = await shared();
    const observer = await (await open(url)).create({ id: "contested" });
    // Separate stores: separate connections and lock queues, so the race is decided by the backend.
    const contenders = await Promise.all(
      Array.from({ length: HANDLES }, async (_, index) =>
        handleContender(await (await open(url)).get(observer.id), `h${index}`),
      ),
    );
    console.info(
      `${name}, ${HANDLES} handles: wins by operation ${JSON.stringify(await race(observer, contenders))}`,
    );
    await cleanup();
  });
});
