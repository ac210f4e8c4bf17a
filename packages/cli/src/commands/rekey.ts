import type { RekeyOwnerReport, RekeyReport } from "@skein/thread-core/driver";
import { CliError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { EXIT_CODES } from "../cli/exit-codes.js";
import { integerOption, noMoreArguments } from "../cli/option-values.js";
import { plural } from "../format/plural.js";

/** `skein rekey`: re-encrypts what older keys sealed with the current key, beside live writers. */
export const rekeyCommand: Command = {
  name: "rekey",
  summary: "Re-encrypt what older keys sealed with the current key",
  usage: "rekey --keys-file FILE [--batch N]",
  description:
    'Walks every thread of an encrypted store (or of --scope) and re-encrypts, in place and in batches, every message, metadata, context, checkpoint label and saved state that an older key of the keys file sealed, with its "current" key. Applications may keep reading and writing meanwhile: each rewrite is fenced, and one a writer raced is left for the next run. Interrupted (Ctrl-C, a kill), it is finished by running it again. When the report shows nothing on an old key, that key can be removed from the keys file. Units still in clear in a store migrating to encryption are sealed too, and counted apart. Exits 4 when units raced writers and still use an old key (or none): run it again.',
  options: {
    batch: {
      type: "string",
      placeholder: "N",
      description: "records per page and messages per segment read (default 100)",
    },
  },
  examples: ["skein rekey --store redis://localhost:6379 --keys-file ./keys.json"],
  async run(context) {
    noMoreArguments(context, 0);
    const batchSize = integerOption(context, "batch", 1);
    const store = await context.store();
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    let report: RekeyReport;
    try {
      report = await store.rekey({
        signal: controller.signal,
        // One line per page of records on stderr, so a long run shows it is moving (and where it stopped).
        onProgress: (progress) =>
          void context.stderr.line(
            `rekey: ${plural(progress.records, "record")} walked, ${sum(progress.rewritten) + progress.plaintext.sealed} re-encrypted`,
          ),
        ...(batchSize === undefined ? {} : { batchSize }),
      });
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    }
    if (context.json) await context.stdout.json(report);
    else await context.stdout.lines(describeReport(report).join("\n"));
    if (!report.complete)
      throw new CliError("rekey was stopped before the end: run it again", EXIT_CODES.failure);
    if (Object.keys(report.remaining).length > 0 || report.plaintext.remaining > 0) {
      throw new CliError(
        "some units changed while they were being re-encrypted and still use an old key (or none): run rekey again",
        EXIT_CODES.conflict,
      );
    }
  },
};

function counts(byKey: Record<string, number>): string {
  return Object.entries(byKey)
    .map(([key, count]) => `${JSON.stringify(key)}: ${count}`)
    .join(", ");
}

function describeReport(report: RekeyReport): string[] {
  const lines = [
    `walked ${plural(report.records, "record")} and ${plural(report.segments, "segment")}; current key ${JSON.stringify(report.current)}`,
    Object.keys(report.rewritten).length > 0
      ? `re-encrypted from ${counts(report.rewritten)}`
      : "nothing needed re-encrypting",
  ];
  // Units in clear are met only in a store migrating to encryption (allowPlaintext).
  const { plaintext } = report;
  if (plaintext.sealed > 0) lines.push(`sealed ${plural(plaintext.sealed, "unit")} stored in clear`);
  if (plaintext.remaining > 0) lines.push(`still in clear: ${plural(plaintext.remaining, "unit")}`);
  lines.push(
    Object.keys(report.remaining).length > 0
      ? `still on an old key: ${counts(report.remaining)}`
      : report.complete
        ? "nothing uses an old key any more: old keys can be removed from the keys file"
        : "stopped before the end",
  );
  // With per-owner keys: whose old keys are still needed (an owner's old key leaves their file once their
  // line shows nothing on it after a complete run).
  for (const owner of report.owners ?? []) lines.push(describeOwner(owner, report.complete));
  return lines;
}

function describeOwner(owner: RekeyOwnerReport, complete: boolean): string {
  // Owner ids are the application's: quoted as JSON, so no byte of one reaches the terminal as a control.
  const whose =
    owner.owner === undefined ? "threads without an owner" : `owner ${JSON.stringify(owner.owner)}`;
  const parts = [];
  if (Object.keys(owner.rewritten).length > 0) parts.push(`re-encrypted from ${counts(owner.rewritten)}`);
  if (Object.keys(owner.remaining).length > 0) parts.push(`still on an old key: ${counts(owner.remaining)}`);
  else if (complete) parts.push("nothing on an old key");
  return `${whose}: ${parts.join("; ")}`;
}

function sum(byKey: Record<string, number>): number {
  return Object.values(byKey).reduce((total, count) => total + count, 0);
}
