import { type BindEnvironment, rememberSecret, type SkeinAdapter } from "@skein/thread-core/driver";
import OpenAI from "openai";
import { OpenAIConfigurationError } from "./errors.js";

/** The npm package, named in errors and used to find this adapter among a store's adapters. */
export const PACKAGE_NAME = "@skein/adapter-openai";

/** How the adapter gets its `OpenAI` client: a ready one, or the settings to build one. */
export interface ClientOptions {
  /** A ready client: reuse your connection settings, or point it at a local emulator in tests. */
  client?: OpenAI;
  /** Builds a client when none is given. @default process.env.OPENAI_API_KEY */
  apiKey?: string;
  /** @default "https://api.openai.com/v1" */
  baseURL?: string;
  /** Retries of a client built here, for 408, 409, 429, 5xx and connection errors. @default 2 */
  maxRetries?: number;
  /** Milliseconds before a request of a client built here times out. @default 600000 */
  timeout?: number;
}

/**
 * The given client, or one built from `apiKey` / `baseURL` (or the `OPENAI_API_KEY` environment variable).
 * Its key is remembered, so no error or stored failure can quote it.
 */
export function resolveClient(options: ClientOptions): OpenAI {
  const client = options.client ?? buildClient(options);
  rememberSecret(client.apiKey);
  return client;
}

function buildClient(options: ClientOptions): OpenAI {
  try {
    return new OpenAI({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    });
  } catch (error) {
    // The SDK's message names the missing variable; it never contains a key, since there is none.
    throw new OpenAIConfigurationError(
      "No OpenAI client: pass { client } (an OpenAI instance) or { apiKey }, or set OPENAI_API_KEY.",
      { cause: error },
    );
  }
}

/**
 * The client of the `openaiAdapter` a store was opened with. A thread's JSON never holds a client or a
 * key, so binding a state finds it here, or says how to provide it.
 */
export function clientFromEnvironment(environment: BindEnvironment, type: string): OpenAI {
  const adapter = environment.adapters?.find(
    (candidate): candidate is SkeinAdapter & { client: OpenAI } =>
      candidate.packageName === PACKAGE_NAME && "client" in candidate,
  );
  if (!adapter) {
    throw new OpenAIConfigurationError(
      `"${type}" threads need an OpenAI client, and a thread's JSON never holds one: open the store with ` +
        "openStore(url, { adapters: [openaiAdapter({ client })] }).",
    );
  }
  return adapter.client;
}
