import { z } from "zod";
import { encryptingLogDriver } from "../encryption/encrypting-log-driver.js";
import { ThreadNotFoundError } from "../errors.js";
import { LocalStore } from "../local/local-store.js";
import type { LogRecord, SegmentInfo } from "../local/log-driver.js";
import { buildLogState, LogStateSchema, neededSegments, recordPoints } from "../local/log-state.js";
import type { SyncSegmentReader } from "../local/scoped-log-driver.js";
import { chainRanges, SegmentChains } from "../local/segment-chain.js";
import type { Message } from "../message.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import type { RetentionOptions, ThreadTypeRegistry } from "../spec/thread-store.js";
import { defineThreadType, type ThreadState } from "../thread-type.js";
import { MemoryLogDriver } from "./memory-log-driver.js";

/** The zod schema of a `memory` thread's state. */
export const MemoryThreadStateSchema = LogStateSchema.extend({ $type: z.literal("memory") });

/**
 * `memory`: a local thread held in process memory. Its JSON carries its whole log (segments, checkpoints,
 * history, revision), so a thread read back from JSON keeps its time travel.
 */
export const memoryThreadType = defineThreadType({
  type: "memory",
  version: 1,
  schema: MemoryThreadStateSchema as unknown as z.ZodType<ThreadState, unknown>,
  packageName: "@skein/thread-core",
  // A memory state opened outside a memory store becomes a thread with a private log of its own.
  bind: async (state, environment) => {
    const store = createMemoryStore({ registry: environment.registry });
    return store.import(state);
  },
});

/** A store that keeps everything in this process; `openStore("memory:")` gives one. */
export function createMemoryStore(options: {
  registry: ThreadTypeRegistry;
  adapters?: LocalStore["adapters"];
  /** Encrypts the store's contents in memory too (for tests of encryption, or memory an attacker may dump). */
  encryption?: EncryptionOptions;
  retention?: RetentionOptions;
}): LocalStore {
  const driver = new MemoryLogDriver();
  return new LocalStore({
    driver: options.encryption ? encryptingLogDriver(driver, options.encryption) : driver,
    registry: options.registry,
    url: "memory:",
    adapters: options.adapters,
    serialize: serializeMemoryThread,
    ...(options.retention ? { retention: options.retention } : {}),
  });
}

/** The whole log of a memory thread, read synchronously so that `JSON.stringify(thread)` can give it. */
function serializeMemoryThread(record: LogRecord, chains: SegmentChains): ThreadState {
  const driver = chains.driver as unknown as SyncSegmentReader;
  // A handle of a thread deleted since it was read: its segments went with it.
  if (driver.segmentNow(record.head) === undefined) throw new ThreadNotFoundError(record.id);
  const info = (id: string) => driver.segmentNow(id) as SegmentInfo;
  const ranges = chainRanges(record.head, record.length - info(record.head).start, info);
  const end = chains.pointAt(ranges, SegmentChains.length(ranges));
  const segments = neededSegments(recordPoints(record, end), info).map(
    ([segment, count]) => [segment, driver.readSegmentNow(segment.id, 0, count)] as [SegmentInfo, Message[]],
  );
  return buildLogState(record, "memory", end, segments) as ThreadState;
}
