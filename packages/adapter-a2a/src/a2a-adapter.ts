import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { rememberSecret } from "@skein/thread-core/driver";
import { a2aTaskThreadType } from "./a2a-task-thread-type.js";
import { a2aThreadType } from "./a2a-thread-type.js";
import { type A2aAdapter, AgentClients, PACKAGE_NAME } from "./agent-clients.js";
import { a2aFetch } from "./failed-answer.js";

/** Options of `a2aAdapter`: the A2A client factory its threads use, and secrets to keep out of errors. */
export interface A2aAdapterOptions {
  /**
   * Makes the SDK clients that talk to agents; pass your own for authentication, interceptors or other
   * transports; give its transports and card resolver `fetchImpl: a2aFetch(yourFetch)` so errors carry the
   * answer's request id and Retry-After. @default the SDK's default factory (JSON-RPC and HTTP+JSON) on
   * `a2aFetch()`
   */
  clientFactory?: ClientFactory;
  /**
   * The credentials the factory's clients send (API keys, tokens, header values). A factory keeps them
   * inside its fetch function, where skein cannot read them; named here, they are scrubbed from every error
   * and stored failure, even quoted in part or without a prefix (see `rememberSecret`). @default []
   */
  secrets?: readonly string[];
}

/**
 * The adapter for `openStore(url, { adapters })`: registers the `a2a` and `a2a.task` types and lends its
 * clients to the `a2a` threads the store opens.
 * @example const store = await openStore("file:./.skein", { adapters: [a2aAdapter({ clientFactory })] });
 */
export function a2aAdapter(options: A2aAdapterOptions = {}): A2aAdapter {
  for (const secret of options.secrets ?? []) rememberSecret(secret);
  return {
    specificationVersion: "v1",
    packageName: PACKAGE_NAME,
    schemes: [],
    types: [a2aThreadType, a2aTaskThreadType],
    clients: new AgentClients(options.clientFactory ?? recordingClientFactory()),
  };
}

/** The SDK's default factory, its fetches made through `a2aFetch` so failures carry their answer's headers. */
function recordingClientFactory(): ClientFactory {
  const fetchImpl = a2aFetch();
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
}
