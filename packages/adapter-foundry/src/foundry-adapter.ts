import { AgentsClient } from "@azure/ai-agents";
import { AIProjectClient } from "@azure/ai-projects";
import { DefaultAzureCredential, getBearerTokenProvider, type TokenCredential } from "@azure/identity";
import {
  FOUNDRY_ADAPTER,
  type FoundryAdapter,
  type FoundryHttpClient,
  type FoundryOpenAIClient,
  type FoundrySettings,
  PACKAGE_NAME,
} from "./adapter-lookup.js";
import { bearerTokenCheck, type CredentialCheck } from "./bearer-token-check.js";
import { foundryThreadType } from "./classic/agent-thread-type.js";
import { foundryConversationType } from "./conversation/conversation-thread-type.js";
import { FOUNDRY_SCOPE, guardedCredential, projectCredential } from "./credential-guard.js";
import { FoundryConfigurationError } from "./errors.js";

/**
 * How the clients send requests. Production leaves this unset and the SDKs use their own HTTPS transports.
 * Tests (or a corporate proxy) set it: the endpoint stays `https://`, so the Azure SDK's rule that bearer
 * tokens only travel over TLS-protected URLs keeps holding, and only the hop below the SDK changes.
 */
export interface FoundryTransport {
  /** Sends the requests of the `AgentsClient` and `AIProjectClient` the adapter builds. @default the Azure SDK's client */
  httpClient?: FoundryHttpClient;
  /** Sends the requests of the OpenAI-compatible client (conversations, responses). @default global `fetch` */
  fetch?: typeof globalThis.fetch;
}

/** Options of `foundryAdapter`: ready clients, or an endpoint and credential to build them. */
export interface FoundryAdapterOptions {
  /** A ready project client (conversations and responses go through its `getOpenAIClient()`). */
  projectClient?: AIProjectClient;
  /** A ready classic agents client (threads, messages, runs). */
  agentsClient?: AgentsClient;
  /**
   * The project endpoint, `https://<resource>.services.ai.azure.com/api/projects/<project>`, to build the
   * clients a caller did not give. Must be `https:`. @default process.env.FOUNDRY_PROJECT_ENDPOINT
   */
  endpoint?: string;
  /** Any `TokenCredential`, for clients the adapter builds. @default new DefaultAzureCredential() */
  credential?: TokenCredential;
  /** The transport below the SDKs; see `FoundryTransport`. @default the SDKs' own */
  transport?: FoundryTransport;
  /** Retries of a failed request (429, 5xx) by the clients the adapter builds. @default the SDKs' own (3 and 2) */
  maxRetries?: number;
  /** @default 120_000 */
  requestTimeoutMs?: number;
  /** @default 1_000 */
  pollIntervalMs?: number;
  /** @default 600_000 */
  runTimeoutMs?: number;
}

/**
 * The adapter for `foundry.conversation` and `foundry.thread` threads, given to `openStore`.
 * @example openStore("memory:", { adapters: [foundryAdapter({ endpoint, credential: new DefaultAzureCredential() })] })
 */
export function foundryAdapter(options: FoundryAdapterOptions = {}): FoundryAdapter {
  const endpoint = normalizedEndpoint(options);
  let credential = options.credential;
  let projectClient = options.projectClient;
  let agentsClient = options.agentsClient;
  let openAIClient: FoundryOpenAIClient | undefined;
  let agentsCheck: CredentialCheck | undefined;
  // A ready project client's credential is the one its project answers to: a missing agents client uses it too.
  const credentialToUse = () => {
    credential ??=
      (options.projectClient && projectCredential(options.projectClient)) ?? new DefaultAzureCredential();
    return guardedCredential(credential);
  };
  const clientOptions = {
    ...(options.transport?.httpClient ? { httpClient: options.transport.httpClient } : {}),
    ...(options.maxRetries === undefined ? {} : { retryOptions: { maxRetries: options.maxRetries } }),
  };
  const settings: FoundrySettings = Object.freeze({
    requestTimeoutMs: positive(options.requestTimeoutMs, 120_000, "requestTimeoutMs"),
    pollIntervalMs: positive(options.pollIntervalMs, 1_000, "pollIntervalMs"),
    runTimeoutMs: positive(options.runTimeoutMs, 600_000, "runTimeoutMs"),
  });
  const project = (): AIProjectClient => {
    projectClient ??= new AIProjectClient(
      requireEndpoint(endpoint, "foundry.conversation"),
      credentialToUse(),
      clientOptions,
    );
    return projectClient;
  };
  const agents = (): AgentsClient => {
    agentsClient ??= new AgentsClient(
      requireEndpoint(endpoint, "foundry.thread"),
      credentialToUse(),
      clientOptions,
    );
    return agentsClient;
  };
  return Object.freeze({
    [FOUNDRY_ADAPTER]: true as const,
    specificationVersion: "v1" as const,
    packageName: PACKAGE_NAME,
    schemes: [],
    types: [foundryConversationType, foundryThreadType],
    endpoint,
    settings,
    projectClient: project,
    agentsClient: agents,
    async checkAgentsCredential(signal: AbortSignal): Promise<void> {
      agentsCheck ??= bearerTokenCheck(agents(), endpoint) ?? (async () => undefined);
      await agentsCheck(signal);
    },
    openAIClient(): FoundryOpenAIClient {
      if (openAIClient) return openAIClient;
      const client = project().getOpenAIClient(
        options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries },
      );
      // The token function getOpenAIClient() sets asks the project's credential directly, and the openai
      // client reports its failure in an untyped error of its own: ask the same credential through the
      // guard instead. getOpenAIClient() also sets its own `fetch`; withOptions keeps the rest.
      const credentialOfProject = projectCredential(project());
      openAIClient = client.withOptions({
        ...(credentialOfProject
          ? { apiKey: getBearerTokenProvider(guardedCredential(credentialOfProject), FOUNDRY_SCOPE) }
          : {}),
        ...(options.transport?.fetch ? { fetch: options.transport.fetch } : {}),
      });
      return openAIClient;
    },
  });
}

/**
 * The endpoint clients are built from: the one given (or in FOUNDRY_PROJECT_ENDPOINT), which must be https:,
 * else the ready project client's, so a missing agents client is built for the same project.
 */
function normalizedEndpoint(options: FoundryAdapterOptions): string | undefined {
  const given =
    options.endpoint ?? (options.projectClient ? undefined : process.env.FOUNDRY_PROJECT_ENDPOINT);
  if (given === undefined || given === "") return options.projectClient?.endpoint.replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(given);
  } catch (error) {
    throw new FoundryConfigurationError(`The Foundry endpoint ${JSON.stringify(given)} is not a URL.`, {
      cause: error,
    });
  }
  if (url.protocol !== "https:") {
    throw new FoundryConfigurationError(
      `The Foundry endpoint must be https: (bearer tokens never travel over plain HTTP); got ${url.protocol}. ` +
        "To reach a local test server, keep an https: endpoint and pass transport: { httpClient, fetch }.",
    );
  }
  return url.href.replace(/\/+$/, "");
}

function requireEndpoint(endpoint: string | undefined, type: string): string {
  if (endpoint) return endpoint;
  throw new FoundryConfigurationError(
    `"${type}" threads need a Foundry project: foundryAdapter({ projectClient, agentsClient }), ` +
      "foundryAdapter({ endpoint, credential }), or FOUNDRY_PROJECT_ENDPOINT.",
  );
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number of milliseconds`);
  return value;
}
