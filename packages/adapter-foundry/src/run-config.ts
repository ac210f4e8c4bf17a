import { type RunConfig, UnsupportedRunConfigError } from "@skein/thread-core";
import { unhonouredSettings } from "@skein/thread-core/driver";
import { SOURCE } from "./errors.js";

/**
 * Refuses run settings this thread type's service cannot take, before anything is sent: a Foundry agent's
 * definition fixes its model, instructions and sampling, and silently ignoring them would be worse.
 */
export function rejectUnhonouredConfig(
  type: string,
  config: RunConfig | undefined,
  honoured: ReadonlyArray<keyof RunConfig>,
): void {
  const refused = unhonouredSettings(config, honoured);
  if (refused.length === 0) return;
  throw new UnsupportedRunConfigError(
    type,
    refused,
    `set them on the Foundry agent instead; this runner honours ${honoured.join(", ") || "none"} here. Nothing was run.`,
    { source: SOURCE },
  );
}
