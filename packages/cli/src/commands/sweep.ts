import { InvalidOptionError, type OpenStoreOptions } from "@skein/thread-core";
import { UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { booleanOption, integerOption, noMoreArguments, stringOption } from "../cli/option-values.js";
import { plural } from "../format/plural.js";

export const sweepCommand: Command = {
  name: "sweep",
  summary: "Delete the threads that expired",
  usage: "sweep [--idle-for D] [--max-age D] [--batch N] [--quiet]",
  description: [
    "Deletes every thread of the store (or of --scope) past its own expiry (create/update --expires-at in an application: `expiresAt`), or, given a policy, idle for --idle-for or older than --max-age (durations such as 90s, 12h, 30d, 2w). Forks keep the history they share with a deleted thread.",
    "Each thread is deleted only at the revision the sweep read it at: one written to meanwhile is skipped, never lost. Safe to kill and run again: a sweep keeps no state, and the next one deletes what is left.",
    "Progress goes to stderr, a line per batch.",
  ].join("\n\n"),
  options: {
    "idle-for": { type: "string", placeholder: "D", description: "expire threads unchanged for this long" },
    "max-age": { type: "string", placeholder: "D", description: "expire threads created this long ago" },
    batch: {
      type: "string",
      placeholder: "N",
      description: "threads read and deleted at once (default 100)",
    },
    quiet: { type: "boolean", description: "no progress output" },
  },
  examples: [
    "skein sweep --store redis://localhost:6379 --idle-for 30d",
    "skein sweep --scope tenant-a --json",
  ],
  async run(context) {
    noMoreArguments(context, 0);
    const idleFor = stringOption(context, "idle-for");
    const maxAge = stringOption(context, "max-age");
    const batchSize = integerOption(context, "batch", 1) ?? 100;
    let store: Awaited<ReturnType<typeof context.store>>;
    try {
      store = await context.store({
        ...(idleFor === undefined && maxAge === undefined
          ? {}
          : {
              retention: {
                ...(idleFor ? { idleFor: duration(idleFor) } : {}),
                ...(maxAge ? { maxAge: duration(maxAge) } : {}),
              },
            }),
      });
    } catch (error) {
      if (InvalidOptionError.isInstance(error)) {
        const flag = error.option === "retention.maxAge" ? "--max-age" : "--idle-for";
        throw new UsageError(
          `${flag} ${error.given} is not a duration; give one such as 90s, 12h, 30d or 2w`,
        );
      }
      throw error;
    }
    const quiet = booleanOption(context, "quiet");
    const report = await store.sweep({
      batchSize,
      onProgress: (progress) => {
        if (!quiet) {
          void context.stderr.line(
            `sweep: ${plural(progress.deleted, "thread")} deleted, ${progress.skipped} skipped`,
          );
        }
      },
    });
    if (context.json) await context.stdout.json({ store: store.url, ...report });
    else {
      await context.stdout.line(
        `deleted ${plural(report.deleted, "expired thread")} from ${store.url}${report.skipped > 0 ? `; ${report.skipped} skipped (kept, or written to since)` : ""}`,
      );
    }
  },
};

type Duration = NonNullable<OpenStoreOptions["retention"]>["idleFor"];

/** A duration flag: digits alone are milliseconds, as in the API; anything else goes to the store to check. */
function duration(text: string): Duration {
  return (/^\d+$/.test(text) ? Number(text) : text) as Duration;
}
