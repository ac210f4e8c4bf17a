import type { ThreadType } from "@skein/thread-core";
import { rememberSecret, type SkeinAdapter } from "@skein/thread-core/driver";
import type OpenAI from "openai";
import { openaiConversationType } from "./conversation-type.js";
import { type ClientOptions, PACKAGE_NAME, resolveClient } from "./openai-client.js";
import { openaiResponsesType } from "./responses-type.js";

/** Options of `openaiAdapter`: the client its threads use. */
export type OpenAIAdapterOptions = ClientOptions;

/** The adapter: skein's OpenAI thread types, and the client that threads of those types are bound to. */
export interface OpenAIAdapter extends SkeinAdapter {
  /** The client threads use; built on first use when the adapter was given `apiKey` / `baseURL`. */
  readonly client: OpenAI;
}

/**
 * `openai.conversation` and `openai.responses` threads for `openStore`. It opens no store URLs: the
 * threads' states are kept in whatever store holds them, and their histories on the service.
 * @example const store = await openStore("file:./.skein", { adapters: [openaiAdapter({ client })] });
 */
export function openaiAdapter(options: OpenAIAdapterOptions = {}): OpenAIAdapter {
  let client = options.client;
  // Known from now on, before any client is built: no error or stored failure may quote it.
  rememberSecret(options.client ? options.client.apiKey : (options.apiKey ?? process.env.OPENAI_API_KEY));
  const types = [openaiConversationType, openaiResponsesType] as unknown as readonly ThreadType[];
  const adapter = {
    specificationVersion: "v1" as const,
    packageName: PACKAGE_NAME,
    schemes: [] as readonly string[],
    types,
    /** An adapter in a log line or a JSON dump names its types, never its client or key. */
    toJSON: () => ({ packageName: PACKAGE_NAME, types: types.map((type) => type.type) }),
  };
  // Not enumerable: spreading or inspecting the adapter does not copy the client and its key.
  Object.defineProperty(adapter, "client", {
    enumerable: false,
    get: () => {
      client ??= resolveClient(options);
      return client;
    },
  });
  return Object.freeze(adapter) as unknown as OpenAIAdapter;
}
