import { type RunConfig, UnsupportedOperationError } from "@skein/thread-core";
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
  const refused = Object.entries(config ?? {})
    .filter(([key, value]) => value !== undefined && !honoured.includes(key as keyof RunConfig))
    .filter(([key, value]) => !(key === "parameters" && Object.keys(value as object).length === 0))
    .map(([key]) => key);
  if (refused.length === 0) return;
  throw new UnsupportedOperationError(
    type,
    `the run setting(s) ${refused.join(", ")}`,
    `set them on the Foundry agent instead; this runner honours ${honoured.join(", ") || "none"} here. Nothing was run.`,
    { source: SOURCE },
  );
}
