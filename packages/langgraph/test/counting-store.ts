// A real store seen through a counter: every message a thread or a point of it returns is counted, so a
// test can say how much a call read, on any store, without changing what the store does.
import type { ThreadStore } from "@skein/thread-core";

export interface ReadCounter {
  messages: number;
}

function countingView<View extends object>(view: View, counter: ReadCounter): View {
  return new Proxy(view, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (key === "messages") {
        return async (...args: unknown[]) => {
          const read = (await value.apply(target, args)) as unknown[];
          counter.messages += read.length;
          return read;
        };
      }
      if (key === "at") {
        return async (...args: unknown[]) => countingView(await value.apply(target, args), counter);
      }
      return value.bind(target);
    },
  });
}

/** The store, whose threads count the messages they return into `counter`. */
export function countingStore(store: ThreadStore, counter: ReadCounter): ThreadStore {
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (key === "get" || key === "create") {
        return async (...args: unknown[]) => countingView(await value.apply(target, args), counter);
      }
      return value.bind(target);
    },
  });
}
