import { ConflictError, ThreadNotFoundError, type ThreadStore } from "@skein/thread-core";
import type { A2aThreadState } from "./a2a-thread-state.js";
import { SOURCE } from "./errors.js";

/**
 * The `a2a` state saved in `store` under `id`, read without binding it (binding reads it too), or
 * undefined when the store holds nothing there. Another kind of thread under the id is a `ConflictError`.
 */
export async function readStoredState(store: ThreadStore, id: string): Promise<A2aThreadState | undefined> {
  let json: unknown;
  try {
    json = await store.export(id);
  } catch (error) {
    if (ThreadNotFoundError.isInstance(error)) return undefined;
    throw error;
  }
  const type = (json as { $type?: unknown }).$type;
  if (type !== "a2a") {
    throw new ConflictError(
      `Thread ${JSON.stringify(id)} in the store is a ${String(type)} thread.`,
      undefined,
      {
        source: SOURCE,
      },
    );
  }
  return store.registry.parse(json) as A2aThreadState;
}

/**
 * The newer of a state and its saved copy. A state embedded elsewhere (a workflow's sub-thread, JSON an
 * application kept) falls behind when the thread is used on its own; the store's copy then wins.
 */
export async function newestState(
  state: A2aThreadState,
  store: ThreadStore | undefined,
): Promise<A2aThreadState> {
  if (!store) return state;
  const stored = await readStoredState(store, state.id).catch((error: unknown) => {
    if (ConflictError.isInstance(error)) return undefined; // not ours: the state stands alone
    throw error;
  });
  return stored && (stored.revision ?? 0) > (state.revision ?? 0) ? stored : state;
}
