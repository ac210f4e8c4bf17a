import type { ServiceRecord } from "./service-record.js";

/** Where a service thread is in its life; see the README for the transitions. */
export type ThreadStatus = "idle" | "running" | "paused" | "killed" | "failed" | "locked";

/**
 * The status a record and the knowledge of a run in progress add up to: killed, then locked (a branched
 * parent, for good), then paused win over running.
 */
export function statusOf(record: ServiceRecord, running: boolean): ThreadStatus {
  if (record.lifecycle === "killed") return "killed";
  if (record.branches.length > 0) return "locked";
  if (record.lifecycle === "paused") return "paused";
  if (running) return "running";
  return record.lastFailure ? "failed" : "idle";
}
