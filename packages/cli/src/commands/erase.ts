import { CliError, UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { EXIT_CODES } from "../cli/exit-codes.js";
import { booleanOption, noMoreArguments, stringOption } from "../cli/option-values.js";
import { erasureReportLines } from "../format/erasure-report.js";
import { plural } from "../format/plural.js";

/** How many erased threads pass between two progress lines on stderr. */
const PROGRESS_EVERY = 100;

export const eraseCommand: Command = {
  name: "erase",
  summary: "Erase every thread of one owner",
  usage: "erase --owner X [--include-shared-forks] [--keep-keys]",
  description:
    "Erases every thread of the owner in the store and all its scopes (or in --scope and the scopes inside it): messages, history, checkpoints, operation ids, catalogue entries, and segments no kept thread shares. Threads of services (OpenAI conversations, Foundry threads) are deleted through their adapter; one that cannot be is reported as not deleted (exit 1). Other owners' forks keep the messages they share with the owner's threads (listed as kept) unless --include-shared-forks. Resumable: a run stopped or killed halfway finishes when run again, and a run with nothing left reports zero. Progress goes to stderr; the report to stdout (--json: the whole report). The report says what the backend still needs (PostgreSQL: VACUUM FULL). On a store with per-owner keys (the keys file's owners directory), the owner's key file is removed once their threads are gone (method deleted+crypto-shredded): every backup and copy of their threads is unreadable from then on; --keep-keys keeps it.",
  options: {
    owner: { type: "string", placeholder: "X", description: "the owner whose threads are erased (required)" },
    "include-shared-forks": {
      type: "boolean",
      description: "also erase other owners' forks that share the owner's messages",
    },
    "keep-keys": {
      type: "boolean",
      description: "with per-owner keys, keep the owner's keys (delete only; no crypto-shredding)",
    },
  },
  examples: ["skein erase --store file:./.skein --owner u-7", "skein erase --owner u-7 --json"],
  async run(context) {
    noMoreArguments(context, 0);
    const owner = stringOption(context, "owner");
    if (owner === undefined) {
      throw new UsageError("erase needs --owner X: there is no erase-everything default");
    }
    const store = await context.store();
    const report = await store.erase({
      owner,
      includeSharedForks: booleanOption(context, "include-shared-forks"),
      shredKey: !booleanOption(context, "keep-keys"),
      onProgress: (step) => {
        if (step.phase === "scanned") {
          void context.stderr.line(
            `read ${plural(step.scanned, "record")}: ${plural(step.total, "thread")} to erase`,
          );
        } else if (step.erased % PROGRESS_EVERY === 0 || step.erased === step.total) {
          void context.stderr.line(`erased ${step.erased}/${step.total}`);
        }
      },
    });
    if (context.json) await context.stdout.json(report);
    else for (const line of erasureReportLines(report)) await context.stdout.line(line);
    const left = report.remote.filter((remote) => !remote.deleted);
    if (left.length > 0) {
      throw new CliError(
        `${plural(left.length, "service thread")} of ${JSON.stringify(owner)} not deleted on the service: ${left.map((remote) => remote.id).join(", ")}`,
        EXIT_CODES.failure,
      );
    }
  },
};
