import type { Thread } from "@skein/thread-core";
import { ThreadKilledError } from "./errors.js";
import type { ServiceContext } from "./message-item.js";
import { changeServiceRecord } from "./optimistic-update.js";
import { assertRunnerSupports } from "./runner-support.js";
import { newServiceRecord, readServiceRecord, SERVICE_RECORD_KEY } from "./service-record.js";
import type { QueueItem } from "./thread-queues.js";

/** Options of `service.branch`: the new thread's id and where to fork. */
export interface BranchOptions {
  /** Fork after this message (or at this checkpoint id). @default the end of the thread */
  at?: string;
  /** The branch's id. @default a new sortable id */
  id?: string;
}

interface Settle<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/**
 * A branch waiting in its parent's queue, so it forks after the messages sent before it and never in the
 * middle of a run (in this instance or, through the lease, in any other).
 */
export function branchItem(
  context: ServiceContext,
  threadId: string,
  options: BranchOptions,
  settle: Settle<{ threadId: string }>,
): QueueItem {
  return {
    kind: "branch",
    fail: settle.reject,
    execute: async () => {
      try {
        const branch = await makeBranch(context, await context.store.get(threadId), options);
        const at = new Date().toISOString();
        context.events.emit({ type: "status", threadId, status: "locked", at });
        context.events.emit({ type: "status", threadId: branch.id, status: "idle", at });
        settle.resolve({ threadId: branch.id });
      } catch (error) {
        settle.reject(error);
      }
    },
  };
}

async function makeBranch(context: ServiceContext, parent: Thread, options: BranchOptions): Promise<Thread> {
  const record = await context.configs.verified(parent.id, readServiceRecord(parent));
  if (record.lifecycle === "killed") throw new ThreadKilledError(parent.id);
  // A runner that cannot serve the parent cannot serve its fork: refuse before anything is made.
  await assertRunnerSupports(context.runner, parent, { created: false });
  const branchRecord = {
    ...newServiceRecord(record.config),
    attachments: record.attachments,
    branchedFrom: parent.id,
    originatingThreadId: record.originatingThreadId ?? record.branchedFrom ?? parent.id,
  };
  const branch = await parent.fork({
    ...(options.at === undefined ? {} : { at: options.at }),
    ...(options.id === undefined ? {} : { id: options.id }),
    metadata: { [SERVICE_RECORD_KEY]: branchRecord },
  });
  try {
    await assertRunnerSupports(context.runner, branch, { created: true });
    await context.configs.write(branch.id, branchRecord);
  } catch (error) {
    await branch.delete().catch(() => {});
    throw error;
  }
  try {
    await changeServiceRecord(parent, (current) => {
      if (current.lifecycle === "killed") throw new ThreadKilledError(parent.id);
      return { ...current, branches: [...current.branches, branch.id] };
    });
  } catch (error) {
    // The parent was killed (or could not be locked) meanwhile: no branch, rather than a half-made one.
    await branch.delete().catch(() => {});
    throw error;
  }
  return branch;
}
