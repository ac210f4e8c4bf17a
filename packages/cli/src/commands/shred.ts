import { UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { noMoreArguments, stringOption } from "../cli/option-values.js";

/** `skein shred`: crypto-shreds an owner (`store.shredOwner`), deleting nothing. */
export const shredCommand: Command = {
  name: "shred",
  summary: "Destroy one owner's keys (crypto-shredding), deleting nothing",
  usage: "shred --owner X",
  description:
    'Destroys the owner\'s keys on a store with per-owner keys: the keys file\'s "owners" directory loses the owner\'s file. Every copy of their threads, backups included, reads as "no key" (KeyNotFoundError) from then on; the threads still list, with what is stored in clear (id, owner, timestamps). erase --owner deletes the threads and destroys the keys in one go. On a store without per-owner keys it changes nothing and exits 1.',
  options: {
    owner: { type: "string", placeholder: "X", description: "the owner whose keys are destroyed (required)" },
  },
  examples: ["skein shred --owner u-7 --keys-file ./keys.json"],
  async run(context) {
    noMoreArguments(context, 0);
    const owner = stringOption(context, "owner");
    if (owner === undefined) throw new UsageError("shred needs --owner X");
    const store = await context.store();
    await store.shredOwner(owner);
    if (context.json) await context.stdout.json({ owner, method: "crypto-shredded" });
    else {
      await context.stdout.line(
        `crypto-shredded ${JSON.stringify(owner)}: their keys are destroyed and their threads no longer read (erase --owner deletes them)`,
      );
    }
  },
};
