import { ConcurrencyError } from "../errors.js";

/**
 * A fenced workflow `delete({ ifRevision })` refused part-way: `threadId` (a sub-thread, or the workflow
 * itself) had moved past the revision the delete checked, after the sub-threads named in `deleted` (by key)
 * were already deleted. A `ConcurrencyError`, so a fence treats it as any refused write; the workflow's own
 * state is deleted last, so it is still there and can be read again.
 */
export class WorkflowPartlyDeletedError extends ConcurrencyError {
  static override readonly marker: string = "skein.thread-core.WorkflowPartlyDeletedError";
  constructor(
    readonly workflowId: string,
    readonly deleted: readonly string[],
    refused: ConcurrencyError,
  ) {
    super(refused.threadId, refused.expectedRevision, refused.actualRevision, {
      cause: refused,
      source: refused.source,
    });
    const where =
      refused.threadId === workflowId
        ? "its own state"
        : `its sub-thread ${JSON.stringify(refused.threadId)}`;
    this.message =
      `[${this.source}] Workflow ${JSON.stringify(workflowId)} was not deleted: ${where} is at revision ` +
      `${refused.actualRevision}, not ${refused.expectedRevision}. Already deleted: sub-thread` +
      `${deleted.length === 1 ? "" : "s"} ${deleted.map((key) => JSON.stringify(key)).join(", ")}. ` +
      "Read the workflow again before deleting it or writing to it.";
  }
}
