import { type FoundryAdapter, type FoundryAdapterOptions, foundryAdapter } from "../../src/index.js";
import { AgentsService } from "./agents-service.js";
import { ConversationsService } from "./conversations-service.js";
import { EmulatorHttp } from "./emulator-http.js";
import { IdSource } from "./id-source.js";
import { type LoopbackTransport, loopbackTransport } from "./loopback-transport.js";
import { TEST_TOKEN, testCredential } from "./test-credential.js";

const HOST = "foundry.emulator.test";
const PROJECT = "skein-test";

/** A loopback emulator of one Foundry project's REST routes, for the real Azure and OpenAI clients. */
export interface FoundryEmulator {
  /** The project endpoint the clients use: https:, carried to loopback by `transport`. */
  readonly endpoint: string;
  readonly transport: LoopbackTransport;
  /** The plain-HTTP loopback address the transport carries requests to. */
  readonly loopback: URL;
  readonly http: EmulatorHttp;
  readonly agents: AgentsService;
  readonly conversations: ConversationsService;
  /** An adapter on the emulator: its endpoint, the test credential, its transport, short polls. */
  adapter(options?: Partial<FoundryAdapterOptions>): FoundryAdapter;
  close(): Promise<void>;
}

export async function startFoundryEmulator(): Promise<FoundryEmulator> {
  const ids = new IdSource();
  const agents = new AgentsService(ids);
  const conversations = new ConversationsService(ids);
  const http = new EmulatorHttp({
    project: PROJECT,
    token: TEST_TOKEN,
    openAIRoutes: conversations.routes(),
    agentsRoutes: agents.routes(),
  });
  const target = await http.listen();
  const transport = loopbackTransport(HOST, target);
  const endpoint = `https://${HOST}/api/projects/${PROJECT}`;
  return {
    endpoint,
    transport,
    loopback: target,
    http,
    agents,
    conversations,
    adapter: (options = {}) =>
      foundryAdapter({
        endpoint,
        credential: testCredential,
        transport,
        maxRetries: 0,
        pollIntervalMs: 1,
        requestTimeoutMs: 5_000,
        ...options,
      }),
    close: () => http.close(),
  };
}
