import type { Client, ClientFactory } from "@a2a-js/sdk/client";
import type { SkeinAdapter } from "@skein/thread-core/driver";
import { agentError } from "./agent-error.js";
import { A2aAgentUnavailableError } from "./errors.js";
import { recordingAnswers } from "./failed-answer.js";

export const PACKAGE_NAME = "@skein/adapter-a2a";

/**
 * One SDK client per agent URL, made from the agent's card on first use and shared by every thread that
 * talks to that agent. A card that could not be fetched is fetched again on the next call.
 */
export class AgentClients {
  readonly #clients = new Map<string, Promise<Client>>();

  constructor(readonly clientFactory: ClientFactory) {}

  /** The client for the agent whose card `agentCardUrl(agentUrl)` serves. */
  get(agentUrl: string): Promise<Client> {
    let client = this.#clients.get(agentUrl);
    if (!client) {
      client = this.#create(agentUrl);
      this.#clients.set(agentUrl, client);
      client.catch(() => this.#clients.delete(agentUrl));
    }
    return client;
  }

  /** Drops the client so the next call reads the card again (the agent moved or changed transports). */
  forget(agentUrl: string): void {
    this.#clients.delete(agentUrl);
  }

  /**
   * Runs `call` with the agent's client. When the agent cannot be reached, its card is read again next
   * time: it may have moved to another address, which only a fresh card tells.
   */
  async use<Result>(agentUrl: string, call: (client: Client) => Promise<Result>): Promise<Result> {
    const client = await this.get(agentUrl);
    try {
      return await recordingAnswers(() => call(client));
    } catch (error) {
      if (A2aAgentUnavailableError.isInstance(error)) this.forget(agentUrl);
      throw error;
    }
  }

  async #create(agentUrl: string): Promise<Client> {
    try {
      return await recordingAnswers(() => this.clientFactory.createFromUrl(agentCardUrl(agentUrl), ""));
    } catch (error) {
      throw agentError(error, { agentUrl, operation: "GetAgentCard" });
    }
  }
}

/**
 * Where an agent's card is: the URL itself when it names a `.json` file, else
 * `<agentUrl>/.well-known/agent-card.json`, with or without a trailing slash on `agentUrl` (the SDK resolves
 * the card path relative to the URL, which would drop the last path segment of `https://host/agents/echo`).
 */
export function agentCardUrl(agentUrl: string): string {
  const url = new URL(agentUrl);
  if (!url.pathname.endsWith(".json"))
    url.pathname = `${url.pathname.replace(/\/?$/, "/")}.well-known/agent-card.json`;
  return url.href;
}

/** What `a2aAdapter()` returns: a skein adapter that also holds the clients its threads use. */
export interface A2aAdapter extends SkeinAdapter {
  readonly clients: AgentClients;
}

/** The a2a adapter among a store's adapters, if it was given one. */
export function findA2aAdapter(adapters: readonly SkeinAdapter[] | undefined): A2aAdapter | undefined {
  return adapters?.find(
    (adapter): adapter is A2aAdapter =>
      adapter.packageName === PACKAGE_NAME &&
      (adapter as Partial<A2aAdapter>).clients instanceof AgentClients,
  );
}
