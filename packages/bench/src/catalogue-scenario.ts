import type { Thread, ThreadStore } from "@skein/thread-core";
import { type FreshStore, listingKind, type StoreFactory } from "./fresh-stores.js";
import { affordableRuns, measureInTurns } from "./measure.js";

/** One store size of the catalogue rows: how many threads it holds and how many are the owner's. */
export interface CatalogueSize {
  threads: number;
  owned: number;
}

/** One operation's medians at each size (or each subject), in the order of the section's columns. */
export interface SizedRow {
  store: string;
  operation: string;
  micros: number[];
  note?: string;
}

/** Issue 37's rows for one store: the list and append medians, the ordering rows and how long filling took. */
export interface CatalogueRows {
  rows: SizedRow[];
  /** Append to a thread without an owner and to one of the owner's, in the largest store. */
  ordering: SizedRow;
  fills: Array<{ store: string; threads: number; seconds: number }>;
}

/** The owner whose sidebar the rows read. */
export const OWNER = "owner-1";
/** The page a sidebar shows. */
export const PAGE = 20;
/** How many creates run at once while filling: enough to overlap fsyncs and round trips. */
export const FILL_CONCURRENCY = 32;
/** The other owners a large store's threads belong to (a store of many users). */
const OTHER_OWNERS = 10_000;

/** The sizes the issue asks for: 10 vs 100,000 threads, the owner holding 1,000 of the large store's. */
export const CATALOGUE_SIZES: readonly CatalogueSize[] = [
  { threads: 10, owned: 10 },
  { threads: 1000, owned: 1000 },
  { threads: 100_000, owned: 1000 },
];

/** A store filled for the rows: the owner's threads, one thread without an owner, and the fill's time. */
export interface FilledStore extends FreshStore {
  owned: string[];
  unowned?: string;
  seconds: number;
}

/**
 * Creates `size.threads` empty threads through `store.create` (the public API, `FILL_CONCURRENCY` at once),
 * every k-th one the owner's so the owner's threads are spread through the store's history; of the others,
 * the first has no owner and the rest belong to `OTHER_OWNERS` other owners. Each has a title.
 */
export async function fillStore(fresh: FreshStore, size: CatalogueSize): Promise<FilledStore> {
  const every = Math.max(1, Math.floor(size.threads / size.owned));
  const owned: string[] = [];
  let unowned: string | undefined;
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(FILL_CONCURRENCY, size.threads) }, async () => {
      while (next < size.threads) {
        const index = next++;
        const mine = index % every === 0 && index / every < size.owned;
        const bare = !mine && unowned === undefined;
        if (bare) unowned = "";
        const thread = await fresh.store.create({
          ...(mine ? { owner: OWNER } : bare ? {} : { owner: `user-${index % OTHER_OWNERS}` }),
          title: `conversation ${index}`,
        });
        if (mine) owned.push(thread.id);
        if (bare) unowned = thread.id;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { ...fresh, owned, ...(unowned ? { unowned } : {}), seconds };
}

/** The sidebar's page: the owner's 20 newest threads. */
export function newestOfOwner(store: ThreadStore) {
  return store.list({ owner: OWNER, order: "updated", direction: "desc", limit: PAGE });
}

/**
 * Checks a page is what a sidebar needs (only the owner's threads, newest first, as many as there are up to
 * a page): a row of a store that answered wrongly would time the wrong work.
 */
export async function checkNewestPage(store: ThreadStore, owned: number): Promise<void> {
  const { items } = await newestOfOwner(store);
  const problem =
    items.length !== Math.min(PAGE, owned)
      ? `${items.length} threads, not ${Math.min(PAGE, owned)}`
      : items.some((item) => item.owner !== OWNER)
        ? "a thread of another owner"
        : items.some((item, index) => index > 0 && (items[index - 1]?.updatedAt ?? "") < item.updatedAt)
          ? "threads out of last-change order"
          : undefined;
  if (problem) throw new Error(`the newest ${PAGE} of one owner gave ${problem}`);
}

/** Times one call, so a slow store (a scan of 100,000 records) gets few runs instead of an hour of them. */
async function timeOnce(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1000;
}

/**
 * Issue 37's rows on one kind of store: a store per size, filled through the public API; then, measured in
 * turns across the sizes, the owner's 20 newest and an append to one of the owner's threads (which moves it
 * to the front of that order); and, in the largest store, an append to a thread without an owner beside one
 * to the owner's: what keeping the owner's order adds to an append.
 */
export async function catalogueRows(
  factory: StoreFactory,
  sizes: readonly CatalogueSize[] = CATALOGUE_SIZES,
  budgetMs = 30_000,
): Promise<CatalogueRows> {
  const stores: FilledStore[] = [];
  try {
    for (const size of sizes) {
      process.stderr.write(`  catalogue: ${factory.name}, filling ${size.threads} threads…\n`);
      stores.push(await fillStore(await factory.fresh(), size));
    }
    for (const [index, filled] of stores.entries()) {
      await checkNewestPage(filled.store, (sizes[index] as CatalogueSize).owned);
    }
    const largest = stores[stores.length - 1] as FilledStore;
    const kind = listingKind(largest.store);
    const note = kind === "scan" ? "scan: before the index" : "index";
    // A scan of 100,000 records takes seconds to minutes a page: such a store gets the runs that fit in
    // `budgetMs` (one, at worst) and no warm-up, where an indexed one gets the usual hundreds.
    const listSample = await timeOnce(() => newestOfOwner(largest.store));
    const listRuns = affordableRuns(listSample * stores.length, budgetMs, 1, factory.runs);
    const list = await measureInTurns(
      stores.map((filled) => () => newestOfOwner(filled.store)),
      listRuns,
      // Reads warm up until V8 has optimised them, as the scaling rows' do, unless each takes long.
      listRuns < 10 ? 0 : affordableRuns(listSample * stores.length, budgetMs / 6, 1, 2000),
      Math.min(10, listRuns),
    );
    const threads = await Promise.all(
      stores.map((filled) => filled.store.get(filled.owned[filled.owned.length - 1] as string)),
    );
    const append = await measureInTurns(
      threads.map((thread) => () => thread.append({ role: "user", text: "one more" })),
      factory.runs,
      Math.min(20, factory.runs),
    );
    return {
      rows: [
        {
          store: factory.name,
          operation: `list ${PAGE} newest of one owner`,
          micros: list,
          note: `${note}; ${listRuns} ${listRuns === 1 ? "run" : "runs"}`,
        },
        { store: factory.name, operation: "append to one of the owner's threads", micros: append },
      ],
      ordering: await orderingRow(factory, largest),
      fills: stores.map((filled, index) => ({
        store: factory.name,
        threads: (sizes[index] as CatalogueSize).threads,
        seconds: filled.seconds,
      })),
    };
  } finally {
    for (const filled of stores) await filled.dispose();
  }
}

/**
 * Every thread of a store is kept in the store's last-change order, so no append of skein's is free of
 * ordering; the nearest honest "without" is a thread with no owner, which is in no owner's order. Both in
 * the same store, in turns.
 */
async function orderingRow(factory: StoreFactory, filled: FilledStore): Promise<SizedRow> {
  if (filled.unowned === undefined) {
    throw new Error("the largest store needs threads besides the owner's for the ordering row");
  }
  const subjects: Thread[] = [
    await filled.store.get(filled.unowned),
    await filled.store.get(filled.owned[0] as string),
  ];
  const micros = await measureInTurns(
    subjects.map((thread) => () => thread.append({ role: "user", text: "one more" })),
    factory.runs,
    Math.min(20, factory.runs),
  );
  return { store: factory.name, operation: "append: no owner, then the owner's thread", micros };
}
