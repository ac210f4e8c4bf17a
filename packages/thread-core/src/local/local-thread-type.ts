import { z } from "zod";
import { UnsupportedOperationError } from "../errors.js";
import { defineThreadType, type ThreadState, type ThreadType } from "../thread-type.js";
import { LogReferenceStateSchema } from "./log-state.js";

/**
 * The thread type of a store's local threads (`fs`, `redis`): its JSON refers to the thread by id, and
 * the store that holds the log binds it.
 * @example export const fsThreadType = defineLocalThreadType("fs", "@skein/adapter-fs", "file:");
 */
export function defineLocalThreadType(type: string, packageName: string, scheme: string): ThreadType {
  return defineThreadType({
    type,
    version: 1,
    packageName,
    storage: "reference",
    schema: LogReferenceStateSchema.extend({ $type: z.literal(type) }) as unknown as z.ZodType<
      ThreadState,
      unknown
    >,
    bind: (state) => {
      throw new UnsupportedOperationError(
        type,
        "opening outside its store",
        `open ${JSON.stringify(state.id)} through the ${scheme} store that holds it (store.open or store.get).`,
      );
    },
  });
}
