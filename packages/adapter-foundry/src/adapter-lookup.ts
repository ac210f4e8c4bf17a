import type { AgentsClient, AgentsClientOptionalParams } from "@azure/ai-agents";
import type { AIProjectClient } from "@azure/ai-projects";
import type { BindEnvironment, SkeinAdapter } from "@skein/thread-core/driver";
import { FoundryConfigurationError } from "./errors.js";

export const PACKAGE_NAME = "@skein/adapter-foundry";

/** Marks adapters made by `foundryAdapter`, across duplicate installs of this package. */
export const FOUNDRY_ADAPTER = Symbol.for("skein.adapter-foundry");

/** The OpenAI-compatible client `AIProjectClient.getOpenAIClient()` returns. */
export type FoundryOpenAIClient = ReturnType<AIProjectClient["getOpenAIClient"]>;

/** The Azure SDK's HTTP transport interface (`@azure/core-rest-pipeline` `HttpClient`). */
export type FoundryHttpClient = NonNullable<AgentsClientOptionalParams["httpClient"]>;

/** Limits every thread and runner of one adapter works under. */
export interface FoundrySettings {
  /** A request that gets no answer in this long fails as `FoundryUnavailableError` (code `timeout`). */
  requestTimeoutMs: number;
  /** How often a classic run is polled while queued or in progress. */
  pollIntervalMs: number;
  /** A classic run still going after this long is cancelled and fails as `FoundryRunError` (`timed_out`). */
  runTimeoutMs: number;
}

/** What `foundryAdapter()` returns: a `SkeinAdapter` that also hands its clients to the threads it binds. */
export interface FoundryAdapter extends SkeinAdapter {
  readonly [FOUNDRY_ADAPTER]: true;
  /** The project endpoint, when known (given, or read from the project client). */
  readonly endpoint: string | undefined;
  readonly settings: Readonly<FoundrySettings>;
  /** The project client; built on first use when the adapter was given an endpoint. */
  projectClient(): AIProjectClient;
  /** The classic agents client; built on first use when the adapter was given an endpoint. */
  agentsClient(): AgentsClient;
  /** The project's OpenAI-compatible client (conversations, responses). */
  openAIClient(): FoundryOpenAIClient;
  /**
   * Resolves once the agents client's credential gives a token, sending no request; else rejects with
   * `FoundryCredentialError`. Every call through the agents client is checked first.
   */
  checkAgentsCredential(signal: AbortSignal): Promise<void>;
}

/** Whether a value is an adapter made by `foundryAdapter` (of any installed copy of this package). */
export function isFoundryAdapter(value: unknown): value is FoundryAdapter {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[FOUNDRY_ADAPTER] === true
  );
}

/**
 * The Foundry adapter among those a store was opened with. A thread's JSON never holds clients or
 * credentials, so binding one needs the adapter that does.
 */
export function findFoundryAdapter(environment: BindEnvironment, type: string): FoundryAdapter {
  const adapter = environment.adapters?.find(isFoundryAdapter);
  if (!adapter) {
    throw new FoundryConfigurationError(
      `"${type}" threads need the Foundry adapter, which holds the clients and credential their JSON never does: ` +
        `openStore(url, { adapters: [foundryAdapter({ endpoint, credential })] }) or foundryAdapter({ projectClient, agentsClient }).`,
    );
  }
  return adapter;
}
