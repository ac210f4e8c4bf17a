import type { Message, Thread } from "@skein/thread-core";
import type { SizedRow } from "./catalogue-scenario.js";
import type { StoreFactory } from "./fresh-stores.js";
import { measureTimedInTurns, type Timed } from "./measure.js";
import { filledThread } from "./scaling.js";

/** The threads of issue 38's rows: lengths of the plain threads, and how many edits the third has at one spot. */
export interface BranchingSizes {
  small: number;
  large: number;
  edits: number;
}

export const BRANCHING_SIZES: BranchingSizes = { small: 10, large: 100_000, edits: 1000 };

/** A thread that has the branch operations (every local thread does). */
type BranchingThread = Thread & Required<Pick<Thread, "edit" | "regenerate" | "alternatives" | "switchTo">>;

function branching(thread: Thread): BranchingThread {
  if (!thread.edit || !thread.regenerate || !thread.alternatives || !thread.switchTo) {
    throw new Error(`${thread.type} threads have no edit, regenerate, alternatives or switchTo`);
  }
  return thread as BranchingThread;
}

/** A thread with `edits` versions of its last message (an assistant answer), and the ids of the newest two. */
interface EditedThread {
  thread: BranchingThread;
  /** The version on the current branch. */
  current: string;
  /** The version before it. */
  previous: string;
}

/**
 * A thread of `length` messages whose last message, an assistant answer, was edited `edits` times: `edits`
 * history events and `edits + 1` versions at one position.
 */
export async function editedThread(thread: BranchingThread, edits: number): Promise<EditedThread> {
  const [last] = await thread.messages({ last: 1 });
  let previous = (last as Message).id;
  let current = previous;
  for (let index = 0; index < edits; index++) {
    previous = current;
    current = (await thread.edit(current, { role: "assistant", text: `answer, version ${index + 1}` })).id;
  }
  return { thread, current, previous };
}

/**
 * One operation as each of the three threads runs it: `plain` on a thread of `small` or `large` messages
 * (a fresh fork for each row, so its history holds only that row's own changes), `edited` at the position
 * with `edits` versions. Each prepares untimed and calls `timed` around the operation measured.
 */
interface BranchOperation {
  name: string;
  prepare?(plain: BranchingThread): Promise<unknown>;
  plain(thread: BranchingThread, timed: Timed, prepared: unknown): Promise<unknown>;
  edited(edited: EditedThread, timed: Timed): Promise<unknown>;
}

const OPERATIONS: BranchOperation[] = [
  {
    // The newest message edited: the question a user asks again, differently.
    name: "edit",
    plain: async (thread, timed) => {
      const [question] = await thread.append({ role: "user", text: "What about Lyon?" });
      return timed(() => thread.edit((question as Message).id, { role: "user", text: "And Paris?" }));
    },
    edited: async (edited, timed) => {
      const version = await timed(() =>
        edited.thread.edit(edited.current, { role: "assistant", text: "another answer" }),
      );
      edited.previous = edited.current;
      edited.current = version.id;
    },
  },
  {
    name: "regenerate",
    plain: async (thread, timed) => {
      const [answer] = await thread.append({ role: "assistant", text: "It rains." });
      return timed(() => thread.regenerate((answer as Message).id, { role: "assistant", text: "Sunny." }));
    },
    edited: async (edited, timed) => {
      const version = await timed(() =>
        edited.thread.regenerate(edited.current, { role: "assistant", text: "a new answer" }),
      );
      edited.previous = edited.current;
      edited.current = (version as Message).id;
    },
  },
  {
    // Back and forth between the two newest versions of the last message ("< 1 / 2 >").
    name: "switchTo",
    prepare: async (thread) => {
      const [answer] = await thread.append({ role: "assistant", text: "It rains." });
      const edited = await thread.edit((answer as Message).id, { role: "assistant", text: "Sunny." });
      return { thread, previous: (answer as Message).id, current: edited.id };
    },
    plain: (_thread, timed, prepared) => switchBack(prepared as EditedThread, timed),
    edited: (edited, timed) => switchBack(edited, timed),
  },
  {
    // Plain threads: the two versions switchTo left; the edited thread: all of the versions at its spot.
    name: "alternatives",
    prepare: async (thread) => {
      const [answer] = await thread.append({ role: "assistant", text: "It rains." });
      await thread.edit((answer as Message).id, { role: "assistant", text: "Sunny." });
      return (answer as Message).id;
    },
    plain: (thread, timed, prepared) => timed(() => alternativesOf(thread, prepared as string)),
    edited: (edited, timed) => timed(() => alternativesOf(edited.thread, edited.current)),
  },
  {
    // The first message, never edited: one version, whatever the history holds elsewhere.
    name: "alternatives of a message never edited",
    plain: async (thread, timed) => timed(() => alternativesOfFirst(thread)),
    edited: (edited, timed) => timed(() => alternativesOfFirst(edited.thread)),
  },
];

async function switchBack(edited: EditedThread, timed: Timed): Promise<void> {
  const to = edited.previous;
  await timed(() => edited.thread.switchTo(to));
  edited.previous = edited.current;
  edited.current = to;
}

function alternativesOf(thread: BranchingThread, messageId: string) {
  return thread.alternatives(messageId);
}

async function alternativesOfFirst(thread: BranchingThread) {
  const [first] = await thread.messages({ limit: 1 });
  return alternativesOf(thread, (first as Message).id);
}

/**
 * Issue 38's rows on one kind of store: edit, regenerate, switchTo and alternatives on a thread of `small`
 * and of `large` messages and at a position with `edits` versions, measured in turns. Each row's note says
 * how many versions the edited position had when the row ended (each timed edit or regenerate adds one).
 */
export async function branchingRows(
  factory: StoreFactory,
  sizes: BranchingSizes = BRANCHING_SIZES,
): Promise<SizedRow[]> {
  const { store, dispose } = await factory.fresh();
  try {
    process.stderr.write(`  branching: ${factory.name}, ${sizes.large} messages and ${sizes.edits} edits…\n`);
    const bases = [await filledThread(store, sizes.small), await filledThread(store, sizes.large)];
    const edited = await editedThread(branching(await filledThread(store, sizes.small)), sizes.edits);
    const rows: SizedRow[] = [];
    for (const operation of OPERATIONS) {
      const plains = await Promise.all(bases.map(async (base) => branching(await base.fork())));
      const prepared = await Promise.all(plains.map((plain) => operation.prepare?.(plain)));
      const micros = await measureTimedInTurns(
        [
          ...plains.map((plain, index) => (timed: Timed) => operation.plain(plain, timed, prepared[index])),
          (timed: Timed) => operation.edited(edited, timed),
        ],
        factory.runs,
        Math.min(20, factory.runs),
      );
      const versions = (await alternativesOf(edited.thread, edited.current)).length;
      rows.push({ store: factory.name, operation: operation.name, micros, note: `${versions} versions` });
    }
    return rows;
  } finally {
    await dispose();
  }
}
