import { inspect } from "node:util";
import { AgentsClient } from "@azure/ai-agents";
import { AIProjectClient } from "@azure/ai-projects";
import type { TokenCredential } from "@azure/identity";
import { openStore, type Thread, type ThreadState, type ThreadStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { type FoundryAdapter, FoundryCredentialError, foundryAdapter, foundryRunner } from "../src/index.js";
import type { RemoteThread } from "../src/remote-thread.js";
import type { FoundryEmulator } from "./emulator/foundry-emulator.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

/** Token-shaped text in the credential's error, as an identity provider may quote the assertion it refused. */
const SECRET = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJza2VpbiJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg";

/** How a credential fails: it rejects (no login, an expired secret), or it resolves null (no token, no reason). */
const failures: Record<string, TokenCredential> = {
  rejects: {
    getToken: async () => {
      throw new Error(`AADSTS7000215: the assertion ${SECRET} has expired`);
    },
  },
  "resolves null": { getToken: async () => null },
};

/** How the application gives the adapter its clients, each built on the failing credential. */
const setups: Record<string, (emulator: FoundryEmulator, credential: TokenCredential) => FoundryAdapter> = {
  "a ready AIProjectClient": ({ endpoint, transport }, credential) =>
    foundryAdapter({
      projectClient: new AIProjectClient(endpoint, credential, readyOptions(transport)),
      transport: { fetch: transport.fetch },
      pollIntervalMs: 1,
    }),
  "a ready AgentsClient (and AIProjectClient)": ({ endpoint, transport }, credential) =>
    foundryAdapter({
      projectClient: new AIProjectClient(endpoint, credential, readyOptions(transport)),
      agentsClient: new AgentsClient(endpoint, credential, readyOptions(transport)),
      transport: { fetch: transport.fetch },
      pollIntervalMs: 1,
    }),
  "{ endpoint, credential }": (emulator, credential) => emulator.adapter({ credential }),
};

function readyOptions(transport: FoundryEmulator["transport"]) {
  return { httpClient: transport.httpClient, retryOptions: { maxRetries: 0 } };
}

/** Threads made through a working adapter, then opened through the failing one. */
interface Existing {
  conversation: RemoteThread<ThreadState>;
  agentThread: RemoteThread<ThreadState>;
  local: Thread;
}

/** Every path that calls Foundry, on threads the failing store opened. */
const paths: Record<
  string,
  (store: ThreadStore, existing: Existing, adapter: FoundryAdapter) => Promise<unknown>
> = {
  'store.create("foundry.conversation")': (store) =>
    store.create("foundry.conversation", { agentName: "echo" }),
  'store.create("foundry.conversation") adopting an id': (store, { conversation }) =>
    store.create("foundry.conversation", {
      agentName: "echo",
      conversationId: conversationIdOf(conversation),
    }),
  'store.create("foundry.thread")': (store) => store.create("foundry.thread", { agentId: "asst_echo" }),
  'store.create("foundry.thread") adopting an id': (store, { agentThread }) =>
    store.create("foundry.thread", { agentId: "asst_echo", threadId: agentThread.toJSON().threadId }),
  "conversation.messages()": (_, { conversation }) => conversation.messages(),
  "agentThread.messages()": (_, { agentThread }) => agentThread.messages(),
  "conversation.message(id)": (_, { conversation }) => conversation.message("msg_anything"),
  "agentThread.message(id)": (_, { agentThread }) => agentThread.message("msg_anything"),
  "conversation.append(user)": (_, { conversation }) => conversation.append({ role: "user", text: "hi" }),
  "agentThread.append(user)": (_, { agentThread }) => agentThread.append({ role: "user", text: "hi" }),
  "agentThread.append(function results)": (_, { agentThread }) =>
    agentThread.append({
      role: "tool",
      contents: [{ type: "function_result", callId: "call_1", result: "sunny" }],
    }),
  "conversation.fork()": (_, { conversation }) => conversation.fork(),
  "agentThread.fork()": (_, { agentThread }) => agentThread.fork(),
  "conversation.refresh()": (_, { conversation }) => conversation.refresh(),
  "agentThread.refresh()": (_, { agentThread }) => agentThread.refresh(),
  "conversation.delete()": (_, { conversation }) => conversation.delete(),
  "agentThread.delete()": (_, { agentThread }) => agentThread.delete(),
  "foundryRunner().run(conversation)": (_, { conversation }) => foundryRunner().run(conversation),
  "foundryRunner().run(agentThread)": (_, { agentThread }) => foundryRunner().run(agentThread),
  "foundryRunner({ adapter, agentName }).run(local thread)": (_, { local }, adapter) =>
    foundryRunner({ adapter, agentName: "echo" }).run(local),
};

function conversationIdOf(thread: Thread): string {
  return String(thread.toJSON().conversationId);
}

async function existingThreads(store: ThreadStore): Promise<Existing> {
  const working = await fixture.store();
  const messages = [{ role: "user" as const, text: "made while the credential worked" }];
  const conversation = await working.create("foundry.conversation", { agentName: "echo", messages });
  const agentThread = await working.create("foundry.thread", { agentId: "asst_echo", messages });
  await working.close();
  const local = await store.create();
  await local.append(messages);
  return {
    conversation: (await store.open(JSON.parse(JSON.stringify(conversation)))) as RemoteThread<ThreadState>,
    agentThread: (await store.open(JSON.parse(JSON.stringify(agentThread)))) as RemoteThread<ThreadState>,
    local,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );
}

const cases = Object.keys(setups).flatMap((setup) =>
  Object.keys(failures).flatMap((kind) => Object.keys(paths).map((path) => [setup, kind, path] as const)),
);

describe("every credential failure is a FoundryCredentialError, and sends nothing", () => {
  it.each(cases)("%s whose credential %s: %s", async (setup, kind, path) => {
    const credential = failures[kind] as TokenCredential;
    const adapter = (setups[setup] as NonNullable<(typeof setups)[string]>)(fixture.emulator, credential);
    const store = await openStore("memory:", { adapters: [adapter] });
    const existing = await existingThreads(store);
    const requests = fixture.emulator.http.requests;
    const before = requests.length;

    const error = await failure(
      (paths[path] as NonNullable<(typeof paths)[string]>)(store, existing, adapter),
    );

    expect(FoundryCredentialError.isInstance(error), inspect(error)).toBe(true);
    const credentialError = error as FoundryCredentialError;
    expect(credentialError.cause).toBeDefined();
    expect(credentialError.message).toMatch(/^\[adapter-foundry\] /);
    expect(credentialError.retryable).toBe(false);
    for (const shown of [
      String(error),
      JSON.stringify(error, Object.getOwnPropertyNames(error)),
      inspect(error, { depth: Number.POSITIVE_INFINITY }),
    ]) {
      expect(shown).not.toContain(SECRET);
    }
    expect(requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual([]);
    await store.close();
  });
});
