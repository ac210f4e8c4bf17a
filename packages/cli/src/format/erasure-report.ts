import type { ThreadStore } from "@skein/thread-core";
import { plural } from "./plural.js";

/** What `store.erase` answers (the report's type is not among thread-core's root names). */
type ErasureReport = Awaited<ReturnType<ThreadStore["erase"]>>;

/**
 * `skein erase`'s report as lines of text: what went and how (`deleted`, or `deleted+crypto-shredded` when the
 * owner's keys were destroyed too), why the keys were kept when they could have been destroyed, the forks kept,
 * service threads and what the backend still needs.
 */
export function erasureReportLines(report: ErasureReport): string[] {
  const lines = [
    `erased ${plural(report.threads, "thread")} of ${JSON.stringify(report.owner)}: ${plural(report.messages, "message")}, ${report.bytes} bytes (${report.method})`,
  ];
  if (report.keyKept !== undefined) {
    // thread-core names its option; on the command line it is the flag.
    lines.push(`owner's keys kept: ${report.keyKept === "shredKey: false" ? "--keep-keys" : report.keyKept}`);
  }
  for (const kept of report.keptShared) {
    lines.push(
      `kept ${kept.id}${kept.scopes.length ? ` (scope ${kept.scopes.join(" / ")})` : ""}: a fork of ${JSON.stringify(kept.owner ?? "no owner")} that shares the owner's messages (--include-shared-forks erases it)`,
    );
  }
  for (const remote of report.remote) {
    lines.push(
      remote.deleted
        ? `deleted ${remote.type} ${remote.id} on its service`
        : `NOT deleted on its service: ${remote.type} ${remote.id}: ${remote.reason}`,
    );
  }
  if (report.followUp) lines.push(`still to do: ${report.followUp}`);
  return lines;
}
