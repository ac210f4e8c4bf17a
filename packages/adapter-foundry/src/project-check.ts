import type { ThreadState } from "@skein/thread-core";
import type { FoundryAdapter } from "./adapter-lookup.js";
import { FoundryConfigurationError } from "./errors.js";

/**
 * Refuses to bind a state recorded in one Foundry project through an adapter for another: its ids would
 * name nothing there, or worse, something else.
 */
export function assertSameProject(
  state: ThreadState & { projectEndpoint?: string },
  adapter: FoundryAdapter,
): void {
  const recorded = state.projectEndpoint;
  if (recorded === undefined || adapter.endpoint === undefined) return;
  if (comparable(recorded) === comparable(adapter.endpoint)) return;
  throw new FoundryConfigurationError(
    `Thread ${JSON.stringify(state.id)} lives in the Foundry project ${recorded}, but the adapter is for ${adapter.endpoint}; open it with an adapter for its project.`,
  );
}

function comparable(endpoint: string): string {
  return endpoint.replace(/\/+$/, "").toLowerCase();
}
