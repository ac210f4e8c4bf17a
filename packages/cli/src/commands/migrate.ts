import { CliError, UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { EXIT_CODES } from "../cli/exit-codes.js";
import { booleanOption, integerOption, noMoreArguments, stringOption } from "../cli/option-values.js";
import { plural } from "../format/plural.js";
import { type MigrateReport, migrateThreads } from "../migrate/migrate-threads.js";
import { createProgress } from "../migrate/progress.js";

export const migrateCommand: Command = {
  name: "migrate",
  summary: "Copy every thread, with its whole history, from one store to another",
  usage:
    "migrate --from URL --to URL [--from-scope T] [--to-scope T] [--overwrite] [--concurrency N] [--quiet]",
  description: [
    "Copies each thread through its portable export: local threads keep their segments, checkpoints, rollbacks, fork origins and revision (forks share their history again in the destination); other states are copied as they are. Each copy is read back and compared.",
    "Resumable and idempotent: threads already in the destination and equal are skipped, so an interrupted run (even a killed one) finishes the rest when run again and never duplicates a thread. A destination thread that differs is left alone and reported (exit 4) unless --overwrite. Threads only in the destination are not touched. With --scope, one tenant's threads are copied into the same tenant; --from-scope and --to-scope set each end's scope on its own (e.g. an unscoped store into a tenant of a shared one).",
    "Progress goes to stderr: a bar on a terminal, a plain line every 10% otherwise.",
  ].join("\n\n"),
  options: {
    from: { type: "string", placeholder: "URL", description: "the store to copy from" },
    to: { type: "string", placeholder: "URL", description: "the store to copy into" },
    "from-scope": { type: "string", placeholder: "T", description: "the source's scope (default: --scope)" },
    "to-scope": {
      type: "string",
      placeholder: "T",
      description: "the destination's scope (default: --scope)",
    },
    overwrite: { type: "boolean", description: "replace destination threads that differ from the source" },
    concurrency: { type: "string", placeholder: "N", description: "threads copied at once (default 8)" },
    quiet: { type: "boolean", description: "no progress output" },
  },
  examples: [
    "skein migrate --from file:./.skein --to redis://localhost:6379",
    "skein migrate --from redis://old:6379 --to rediss://:secret@new:6380 --scope tenant-a --json",
  ],
  async run(context) {
    noMoreArguments(context, 0);
    const fromUrl = stringOption(context, "from");
    const toUrl = stringOption(context, "to");
    if (fromUrl === undefined || toUrl === undefined)
      throw new UsageError("migrate needs --from URL and --to URL");
    const fromScope = stringOption(context, "from-scope") ?? stringOption(context, "scope");
    const toScope = stringOption(context, "to-scope") ?? stringOption(context, "scope");
    if (fromUrl === toUrl && fromScope === toScope)
      throw new UsageError("--from and --to name the same store and scope");
    const concurrency = integerOption(context, "concurrency", 1) ?? 8;
    // Only the destination is made if missing: a source that holds no store is an error, not "0 threads".
    const from = await context.openStore(fromUrl, fromScope);
    const to = await context.openStore(toUrl, toScope, { create: true });
    const progress = booleanOption(context, "quiet")
      ? undefined
      : createProgress(context.stderr.stream, "migrate");
    const report = await migrateThreads(from, to, {
      overwrite: booleanOption(context, "overwrite"),
      concurrency,
      onProgress: (done, total, partial) => progress?.update(done, total, skippedNote(partial)),
    }).finally(() => progress?.finish());
    if (context.json) await context.stdout.json({ from: from.url, to: to.url, ...report });
    else await context.stdout.line(summary(from.url, to.url, report));
    if (report.failed.length > 0) throw new CliError(failures(report), EXIT_CODES.failure);
    if (report.differing.length > 0) {
      const shown = report.differing
        .slice(0, 5)
        .map((id) => JSON.stringify(id))
        .join(", ");
      throw new CliError(
        `${plural(report.differing.length, "thread")} in ${to.url} differ from the source and were left as they are (${shown}${report.differing.length > 5 ? ", …" : ""}); re-run with --overwrite to replace them`,
        EXIT_CODES.conflict,
      );
    }
  },
};

function failures(report: MigrateReport): string {
  const [first] = report.failed;
  const others =
    report.failed.length > 1
      ? ` (and ${report.failed.length - 1} more: ${report.failed
          .slice(1, 6)
          .map((failure) => JSON.stringify(failure.id))
          .join(", ")}${report.failed.length > 6 ? ", …" : ""})`
      : "";
  return `${plural(report.failed.length, "thread")} could not be copied, the others were: ${JSON.stringify(first?.id)}: ${first?.error.replace(/\.$/, "")}${others}; --json lists every reason`;
}

function skippedNote(report: MigrateReport): string {
  return report.unchanged > 0 ? `${report.unchanged} already there` : "";
}

function summary(from: string, to: string, report: MigrateReport): string {
  const rate = report.seconds > 0 ? Math.round(report.copied / report.seconds) : report.copied;
  const parts = [
    `${report.copied} copied`,
    `${report.unchanged} already there`,
    ...(report.differing.length > 0 ? [`${report.differing.length} differ`] : []),
    ...(report.vanished.length > 0 ? [`${report.vanished.length} deleted meanwhile`] : []),
    ...(report.failed.length > 0 ? [`${report.failed.length} failed`] : []),
  ];
  return `migrated ${plural(report.total, "thread")} from ${from} to ${to}: ${parts.join(", ")} in ${report.seconds.toFixed(1)}s (${rate} threads/s)`;
}
