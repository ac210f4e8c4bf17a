import { AgentsClient } from "@azure/ai-agents";
import { AIProjectClient } from "@azure/ai-projects";
import {
  createRegistry,
  InvalidThreadStateError,
  openStore,
  UnknownThreadTypeError,
} from "@skein/thread-core";
import { afterEach, describe, expect, test } from "vitest";
import { isFoundryAdapter } from "../src/adapter-lookup.js";
import {
  FoundryConfigurationError,
  foundryAdapter,
  foundryConversationType,
  foundryRunner,
  foundryThreadType,
} from "../src/index.js";
import { testCredential } from "./emulator/test-credential.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();
const savedEndpoint = process.env.FOUNDRY_PROJECT_ENDPOINT;

afterEach(() => {
  if (savedEndpoint === undefined) delete process.env.FOUNDRY_PROJECT_ENDPOINT;
  else process.env.FOUNDRY_PROJECT_ENDPOINT = savedEndpoint;
});

describe("foundryAdapter", () => {
  test("is a SkeinAdapter for both thread types and no URL schemes", () => {
    const adapter = foundryAdapter({ endpoint: "https://example.services.ai.azure.com/api/projects/p/" });
    expect(isFoundryAdapter(adapter)).toBe(true);
    expect(adapter).toMatchObject({
      specificationVersion: "v1",
      packageName: "@skein/adapter-foundry",
      schemes: [],
    });
    expect(adapter.types).toEqual([foundryConversationType, foundryThreadType]);
    expect(adapter.endpoint).toBe("https://example.services.ai.azure.com/api/projects/p");
    expect(adapter.settings).toEqual({
      requestTimeoutMs: 120_000,
      pollIntervalMs: 1_000,
      runTimeoutMs: 600_000,
    });
  });

  test("takes only https: endpoints, so bearer tokens never travel over plain HTTP", () => {
    expect(() => foundryAdapter({ endpoint: fixture.emulator.loopback.href })).toThrow(
      FoundryConfigurationError,
    );
    expect(() => foundryAdapter({ endpoint: fixture.emulator.loopback.href })).toThrow(
      /must be https:.*transport/,
    );
    expect(() => foundryAdapter({ endpoint: "not a url" })).toThrow(/is not a URL/);
    expect(() => foundryAdapter({ endpoint: "https://x.test", pollIntervalMs: 0 })).toThrow(RangeError);
  });

  test("the Azure SDK itself refuses bearer tokens to a plain-HTTP endpoint: the rule the transport keeps", async () => {
    const client = new AgentsClient(
      `${fixture.emulator.loopback.href}api/projects/skein-test`,
      testCredential,
      {
        retryOptions: { maxRetries: 0 },
      },
    );
    await expect(client.threads.create()).rejects.toThrow(
      /not permitted for non-TLS protected \(non-https\) URLs/,
    );
  });

  test("without a project, creating a thread says how to give one", async () => {
    delete process.env.FOUNDRY_PROJECT_ENDPOINT;
    const store = await openStore("memory:", { adapters: [foundryAdapter()] });
    await expect(store.create("foundry.thread", { agentId: "asst_echo" })).rejects.toThrow(
      /FOUNDRY_PROJECT_ENDPOINT/,
    );
    await expect(store.create("foundry.conversation", { agentName: "echo" })).rejects.toBeInstanceOf(
      FoundryConfigurationError,
    );
  });

  test("reads the endpoint from FOUNDRY_PROJECT_ENDPOINT when none is given", () => {
    process.env.FOUNDRY_PROJECT_ENDPOINT = "https://env.services.ai.azure.com/api/projects/p";
    expect(foundryAdapter().endpoint).toBe("https://env.services.ai.azure.com/api/projects/p");
  });

  test("works with ready clients built by the caller on the same transport", async () => {
    const { endpoint, transport } = fixture.emulator;
    const options = { httpClient: transport.httpClient, retryOptions: { maxRetries: 0 } };
    const adapter = foundryAdapter({
      projectClient: new AIProjectClient(endpoint, testCredential, options),
      agentsClient: new AgentsClient(endpoint, testCredential, options),
      transport: { fetch: transport.fetch },
      pollIntervalMs: 1,
    });
    expect(adapter.endpoint).toBe(endpoint);
    const store = await openStore("memory:", { adapters: [adapter] });
    for (const [type, options] of [
      ["foundry.thread", { agentId: "asst_echo" }],
      ["foundry.conversation", { agentName: "echo" }],
    ] as const) {
      const thread = await store.create(type, { ...options, messages: [{ role: "user", text: "ready" }] });
      const [reply] = await foundryRunner().run(thread);
      expect(reply?.contents[0]).toMatchObject({ text: "echo: ready" });
    }
  });

  test("a missing agents client is built for the ready project client's project", async () => {
    const { endpoint, transport } = fixture.emulator;
    const projectClient = new AIProjectClient(`${endpoint}/`, testCredential, {
      httpClient: transport.httpClient,
    });
    const adapter = foundryAdapter({
      projectClient,
      credential: testCredential,
      transport,
      pollIntervalMs: 1,
    });
    expect(adapter.endpoint).toBe(endpoint);
    const store = await openStore("memory:", { adapters: [adapter] });
    const thread = await store.create("foundry.thread", {
      agentId: "asst_echo",
      messages: [{ role: "user", text: "x" }],
    });
    expect(await foundryRunner().run(thread)).toHaveLength(1);
  });

  test("binding a Foundry state in a store without the adapter says how to pass it", async () => {
    const registry = createRegistry().register(foundryConversationType).register(foundryThreadType);
    const store = await openStore("memory:", { registry });
    const state = { $type: "foundry.thread", id: "t-1", threadId: "thread_1", agentId: "asst_echo" };
    await expect(store.open(state)).rejects.toThrow(/need the Foundry adapter.*foundryAdapter\(/);
    const bare = await openStore("memory:", { registry: createRegistry() });
    const unknown = bare.open(state);
    await expect(unknown).rejects.toBeInstanceOf(UnknownThreadTypeError);
    await expect(unknown).rejects.toThrow(/npm install @skein\/adapter-foundry/);
  });

  test("states are validated, and their schema is published with the registry's", async () => {
    const store = await fixture.store();
    const invalid = store.open({ $type: "foundry.conversation", id: "c-1", agentName: "echo" });
    await expect(invalid).rejects.toBeInstanceOf(InvalidThreadStateError);
    await expect(invalid).rejects.toThrow(/conversationId/);
    const schema = JSON.stringify(store.registry.jsonSchema());
    for (const field of ["conversationId", "agentName", "agentVersion", "threadId", "agentId"])
      expect(schema).toContain(field);
  });

  test("agents requests carry api-version=v1, the OpenAI-compatible ones none, every one the bearer token", async () => {
    const store = await fixture.store();
    const since = fixture.emulator.http.requests.length;
    await store.create("foundry.thread", { agentId: "asst_echo" });
    await store.create("foundry.conversation", { agentName: "echo" });
    const requests = fixture.emulator.http.requests.slice(since);
    const [agents, openAI] = [
      requests.filter((r) => !r.path.startsWith("/openai/")),
      requests.filter((r) => r.path.startsWith("/openai/")),
    ];
    expect(agents.map((request) => request.query.get("api-version"))).toEqual(["v1"]);
    expect(openAI.map((request) => request.query.has("api-version"))).toEqual([false]);
    expect(requests.every((request) => request.authorization?.startsWith("Bearer "))).toBe(true);
  });
});
