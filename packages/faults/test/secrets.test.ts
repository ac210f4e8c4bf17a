import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inspect } from "node:util";
import { foundryAdapter, foundryRunner } from "@skein/adapter-foundry";
import { OpenAIServiceError, openaiAdapter, openaiRunner } from "@skein/adapter-openai";
import { redisStore } from "@skein/adapter-redis";
import { openStore, SkeinError, type Thread, type ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startRedisCluster } from "../../../scripts/redis-server.mjs";
import {
  type FoundryEmulator,
  startFoundryEmulator,
} from "../../adapter-foundry/test/emulator/foundry-emulator.js";
import { TEST_TOKEN } from "../../adapter-foundry/test/emulator/test-credential.js";
import { type OpenAIEmulator, startEmulator } from "../../adapter-openai/test/emulator/emulator.js";
import { expectSkeinBuilt, runSkein } from "./support/skein-binary.js";
import { temporaryDirectory } from "./support/temporary-directories.js";
import { deleteKeys, redisStoreUrl, uniquePrefix, useRedis, withClient } from "./support/test-redis.js";

/** The OpenAI key: the emulator accepts only this one. */
const API_KEY = `sk-live-secret-${randomBytes(12).toString("hex")}`;
/** The key quoted bare, without any prefix: only knowing the exact value finds it. */
const KEY_TAIL = API_KEY.slice("sk-live-secret-".length);
/** A key the service refuses (401): it must not leak either. */
const WRONG_KEY = `sk-live-wrong-${randomBytes(12).toString("hex")}`;
/** The Foundry emulator accepts only its test token, which the credential below hands out as a secret. */
const TOKEN = TEST_TOKEN;
const WRONG_TOKEN = `wrong-token-${randomBytes(12).toString("hex")}`;
/** What a production credential (DefaultAzureCredential) hands out: a JWT. */
const ENTRA_TOKEN = [
  "eyJhbGciOiJSUzI1NiJ9",
  `eyJ${randomBytes(24).toString("base64url")}`,
  randomBytes(32).toString("base64url"),
].join(".");
/** The Redis Cluster's password, in the store URL and in each `node=` root node URL. */
const REDIS_PASSWORD = `redis-pw-${randomBytes(12).toString("hex")}`;
const SECRETS = [API_KEY, KEY_TAIL, WRONG_KEY, TOKEN, WRONG_TOKEN, ENTRA_TOKEN, REDIS_PASSWORD];

/** Every way an error is commonly shown or logged. */
function renderings(error: unknown): string[] {
  const value = error as Error;
  return [
    value.message,
    String(value),
    String(value.stack),
    inspect(value, { depth: Number.POSITIVE_INFINITY }),
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    JSON.stringify(value),
    JSON.stringify(value, Object.getOwnPropertyNames(value)),
    inspect((value as { cause?: unknown }).cause, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
  ];
}

function expectNoSecret(texts: string[], where: string): void {
  for (const text of texts) for (const secret of SECRETS) expect(text, where).not.toContain(secret);
}

async function failure(call: () => Promise<unknown>): Promise<Error> {
  const error = await call().then(
    () => new Error("the call succeeded"),
    (thrown: unknown) => thrown as Error,
  );
  expect(SkeinError.isInstance(error), String(error)).toBe(true);
  return error;
}

/** Every byte under a directory, as text. */
async function filesUnder(directory: string): Promise<string> {
  let text = "";
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), "latin1");
  }
  return text;
}

/** Every value stored under a Redis prefix, as text. */
function valuesUnder(url: string, prefix: string): Promise<string> {
  return withClient(url, async (client) => {
    let text = "";
    for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
      for (const key of keys) {
        const type = await client.type(key);
        if (type === "hash") text += JSON.stringify(await client.hGetAll(key));
        else if (type === "list") text += JSON.stringify(await client.lRange(key, 0, -1));
        else if (type === "zset") text += JSON.stringify(await client.zRange(key, 0, -1));
        else if (type === "string") text += (await client.get(key)) ?? "";
        text += key;
      }
    }
    return text;
  });
}

const redis = useRedis();
let openai: OpenAIEmulator;
let foundry: FoundryEmulator;
const opened: ThreadStore[] = [];
beforeAll(async () => {
  openai = await startEmulator(API_KEY);
  foundry = await startFoundryEmulator();
});
afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
  await openai?.close();
  await foundry?.close();
});

/** Adapters that build their own clients from a key and a credential, as applications configure them. */
function adapters(options: { openaiKey?: string; foundryToken?: string } = {}) {
  const openaiWithKey = openaiAdapter({
    apiKey: options.openaiKey ?? API_KEY,
    baseURL: `${openai.url}/v1`,
    maxRetries: 0,
    // A backstop only (the emulator answers at once): generous, for a machine busy with other work.
    timeout: 60_000,
  });
  const foundryWithCredential = foundryAdapter({
    endpoint: foundry.endpoint,
    // A credential that hands out a secret bearer token, as DefaultAzureCredential would.
    credential: {
      getToken: async () => ({
        token: options.foundryToken ?? TOKEN,
        expiresOnTimestamp: Date.now() + 3_600_000,
      }),
    },
    transport: foundry.transport,
    maxRetries: 0,
    requestTimeoutMs: 60_000,
    pollIntervalMs: 1,
  });
  return { openaiWithKey, foundryWithCredential, list: [openaiWithKey, foundryWithCredential] };
}

/** One thread of each remote type, each with a message and, where the type has one, a model run. */
async function remoteThreads(
  store: ThreadStore,
  openaiWithKey: ReturnType<typeof openaiAdapter>,
): Promise<Thread[]> {
  const runner = openaiRunner({ client: openaiWithKey.client, model: "gpt-test" });
  const conversation = await store.create("openai.conversation", { id: "openai-conversation" });
  await conversation.append({ role: "user", text: "hello" });
  await runner.run(conversation);
  const responses = await store.create("openai.responses", { id: "openai-responses" });
  await responses.append({ role: "user", text: "hello" });
  await runner.run(responses);
  const foundryConversation = await store.create("foundry.conversation", {
    id: "foundry-conversation",
    agentName: "echo",
    messages: [{ role: "user", text: "hello" }],
  });
  await foundryRunner().run(foundryConversation);
  const foundryThread = await store.create("foundry.thread", {
    id: "foundry-thread",
    agentId: "asst_echo",
    messages: [{ role: "user", text: "hello" }],
  });
  await foundryRunner().run(foundryThread);
  return [conversation, responses, foundryConversation, foundryThread];
}

describe.each([
  [
    "fs",
    async () => {
      const directory = join(await temporaryDirectory("secrets"), "store");
      return {
        url: pathToFileURL(directory).href,
        stored: () => filesUnder(directory),
        cleanup: async () => {},
      };
    },
  ],
  [
    "redis",
    async () => {
      const prefix = uniquePrefix("secrets");
      return {
        url: redisStoreUrl(redis.url(), prefix),
        stored: () => valuesUnder(redis.url(), prefix),
        cleanup: () => deleteKeys(redis.url(), prefix),
      };
    },
  ],
] as Array<
  [string, () => Promise<{ url: string; stored: () => Promise<string>; cleanup: () => Promise<void> }>]
>)("%s: threads made through adapters that hold an API key and a credential", (_name, open) => {
  it("never hold them: not in their JSON, inspected objects, exports, stored bytes or CLI export files", async () => {
    const backend = await open();
    const { openaiWithKey, list } = adapters();
    const store = await openStore(backend.url, { adapters: list });
    opened.push(store);
    const threads = await remoteThreads(store, openaiWithKey);
    for (const thread of threads) {
      const where = `${thread.type} ${thread.id}`;
      expectNoSecret(
        [
          JSON.stringify(thread),
          inspect(thread, { depth: Number.POSITIVE_INFINITY }),
          JSON.stringify(await store.export(thread.id)),
          JSON.stringify(await store.list()),
        ],
        where,
      );
      // The state alone is enough: bound again, it reaches the service with the adapter's own credentials.
      const again = await store.open(JSON.parse(JSON.stringify(thread)));
      expect((await again.messages()).length, where).toBeGreaterThan(0);
    }
    expectNoSecret(
      [JSON.stringify(list), inspect(list, { depth: Number.POSITIVE_INFINITY })],
      "the adapters",
    );
    expectNoSecret([await backend.stored()], "what the store wrote");

    // `skein export --all --out <file>`, run as users run it.
    const file = join(await temporaryDirectory("secrets-export"), "export.jsonl");
    expectSkeinBuilt();
    const run = await runSkein(["--store", backend.url, "export", "--all", "--out", file]);
    expect(run.code, run.stderr).toBe(0);
    const exported = await readFile(file, "utf8");
    for (const thread of threads) expect(exported).toContain(JSON.stringify(thread.id));
    expectNoSecret([exported], "the CLI export file");
    await backend.cleanup();
  });
});

describe("errors of adapters that hold an API key and a credential", () => {
  it("OpenAI: a refused key (401) and failures (500) that quote the key back never carry it", async () => {
    const store = await openStore("memory:", { adapters: adapters().list });
    opened.push(store);
    const thread = await store.create("openai.conversation");
    await thread.append({ role: "user", text: "hello" });
    openai.inject("conversations.items.list", {
      status: 500,
      message: `upstream rejected Bearer ${API_KEY}; the key was ${API_KEY}`,
    });
    const quoted = await failure(() => thread.messages());
    expect(quoted).toMatchObject({ name: "OpenAIUnavailableError", status: 500 });
    expectNoSecret(renderings(quoted), "a 500 quoting the key");
    openai.inject("conversations.items.create", {
      status: 401,
      message: `Incorrect API key provided: ${API_KEY}`,
    });
    const refusedHere = await failure(() => thread.append({ role: "user", text: "again" }));
    expectNoSecret(renderings(refusedHere), "a 401 quoting the key");

    const wrong = await openStore("memory:", { adapters: adapters({ openaiKey: WRONG_KEY }).list });
    opened.push(wrong);
    const refused = await failure(() => wrong.create("openai.conversation"));
    // A refused key is a credential error, one of the service errors.
    expect(refused).toMatchObject({ name: "OpenAICredentialError", status: 401 });
    expect(OpenAIServiceError.isInstance(refused)).toBe(true);
    expectNoSecret(renderings(refused), "a 401 for a wrong key");
  });

  it("Foundry: a refused token (401) and failures (500) that quote the token back never carry it", async () => {
    const store = await openStore("memory:", { adapters: adapters().list });
    opened.push(store);
    const conversation = await store.create("foundry.conversation", { agentName: "echo" });
    const classic = await store.create("foundry.thread", { agentId: "asst_echo" });
    const faults: Array<[Thread, RegExp]> = [
      [conversation, /^\/openai\/v1\/conversations\/[^/]+\/items$/],
      [classic, /^\/threads\/[^/]+\/messages$/],
    ];
    for (const [thread, path] of faults) {
      for (const [status, message] of [
        [500, `refused request with header Authorization: Bearer ${TOKEN}`],
        [401, `Bearer ${TOKEN} is not valid for this project`],
        // Entra ID tokens are JWTs; quoted bare, without "Bearer", they are still recognised.
        [500, `the access token ${ENTRA_TOKEN} has expired`],
      ] as Array<[number, string]>) {
        foundry.http.inject({ method: "GET", path, status, message });
        const error = await failure(() => thread.messages());
        expectNoSecret(renderings(error), `${thread.type}: ${status}`);
      }
    }
    const wrong = await openStore("memory:", { adapters: adapters({ foundryToken: WRONG_TOKEN }).list });
    opened.push(wrong);
    for (const [type, options] of [
      ["foundry.conversation", { agentName: "echo" }],
      ["foundry.thread", { agentId: "asst_echo" }],
    ] as const) {
      const refused = await failure(() => wrong.create(type, options));
      expect(refused).toMatchObject({ status: 401 });
      expectNoSecret(renderings(refused), `${type}: a 401 for a wrong token`);
    }
  });
});

describe("what services quote back: stream events, failed runs, echoed headers, bodies that are not JSON", () => {
  it("OpenAI: the key, whole or without its prefix, reaches no error, cause or export", async () => {
    const { openaiWithKey, list } = adapters();
    const store = await openStore("memory:", { adapters: list });
    opened.push(store);
    const thread = await store.create("openai.responses");
    await thread.append({ role: "user", text: "hello" });
    const streamed = openaiRunner({ client: openaiWithKey.client, model: "gpt-test" });
    const whole = openaiRunner({ client: openaiWithKey.client, model: "gpt-test", stream: false });

    // A streamed response that breaks with an `error` event quoting the key without its prefix.
    openai.inject("responses.create", {
      streamError: { code: "server_error", message: `upstream refused key ${KEY_TAIL}` },
    });
    const broken = await failure(() => streamed.run(thread));
    expect(broken).toMatchObject({ name: "OpenAIServiceError", code: "server_error" });
    expectNoSecret(renderings(broken), "a stream error event");

    // A response that fails (`response.failed` when streamed, status `failed` when not), quoting the key.
    for (const runner of [streamed, whole]) {
      openai.inject("responses.create", {
        failResponse: { code: "invalid_prompt", message: `the key ${KEY_TAIL} (${API_KEY}) was revoked` },
      });
      const failed = await failure(() => runner.run(thread));
      expect(failed).toMatchObject({ name: "ResponseFailedError", code: "invalid_prompt" });
      expectNoSecret(renderings(failed), "a failed response");
    }

    // A proxy that echoes the request's headers into its answer's headers.
    openai.inject("conversations.items.list", {
      status: 502,
      message: "bad gateway",
      headers: { "x-echo-authorization": `Bearer ${API_KEY}`, "x-echo-key": KEY_TAIL },
    });
    const conversation = await store.create("openai.conversation");
    const echoed = await failure(() => conversation.messages());
    expect(echoed).toMatchObject({ name: "OpenAIUnavailableError", status: 502 });
    expect(String((echoed.cause as { headers?: Headers }).headers?.get("x-echo-key"))).toBe("***");
    expectNoSecret(renderings(echoed), "headers echoed in the cause");

    // A 200 whose body is not JSON, quoting the key at its start: a typed error with a scrubbed excerpt.
    openai.inject("conversations.items.list", { rawBody: `${KEY_TAIL} is not allowed here` });
    const garbled = await failure(() => conversation.messages());
    expect(garbled).toMatchObject({ name: "OpenAIServiceError", operation: "conversations.items.list" });
    expect(garbled.message).toMatch(/not JSON/);
    expectNoSecret(renderings(garbled), "a body that is not JSON");

    expectNoSecret([JSON.stringify(await store.export(thread.id))], "the export");
  });

  it("Foundry: a token quoted bare in a failed run, an echoed header or a body that is not JSON", async () => {
    const store = await openStore("memory:", { adapters: adapters().list });
    opened.push(store);
    // The agent quotes what it was told in its failure: here, the token, bare (no "Bearer", not a JWT).
    for (const [type, options] of [
      ["foundry.conversation", { agentName: "quoting" }],
      ["foundry.thread", { agentId: "asst_quoting" }],
    ] as const) {
      const thread = await store.create(type, {
        ...options,
        messages: [{ role: "user", text: `my token is ${TOKEN}` }],
      });
      const failed = await failure(() => foundryRunner().run(thread));
      expect(failed).toMatchObject({ name: "FoundryRunError" });
      expectNoSecret(renderings(failed), `${type}: a failed run`);
    }
    const conversation = await store.create("foundry.conversation", { agentName: "echo" });
    const classic = await store.create("foundry.thread", { agentId: "asst_echo" });
    for (const [thread, path] of [
      [conversation, /^\/openai\/v1\/conversations\/[^/]+\/items$/],
      [classic, /^\/threads\/[^/]+\/messages$/],
    ] as Array<[Thread, RegExp]>) {
      foundry.http.inject({ method: "GET", path, status: 500, headers: { "x-echo": TOKEN } });
      const echoed = await failure(() => thread.messages());
      expectNoSecret(renderings(echoed), `${thread.type}: a header echoing the token`);
      foundry.http.inject({ method: "GET", path, rawBody: `${TOKEN} is not JSON` });
      const garbled = await failure(() => thread.messages());
      expect(garbled.message, thread.type).toMatch(/not JSON|Foundry answered 200/);
      expectNoSecret(renderings(garbled), `${thread.type}: a body that is not JSON`);
    }
  });
});

describe("a Redis Cluster whose password is in the store URL and in every node= root node", () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>> | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    for (const node of cluster.nodes) {
      execFileSync("redis-cli", ["-p", String(node.port), "config", "set", "requirepass", REDIS_PASSWORD]);
    }
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("shows it nowhere: store.url, skein migrate --json, error messages, stacks, JSON and causes", async () => {
    const [first, second, third] = cluster?.nodes ?? [];
    if (!first || !second || !third) throw new Error("the Cluster has 3 nodes");
    const node = (port: number) => `redis://:${REDIS_PASSWORD}@127.0.0.1:${port}`;
    const prefix = uniquePrefix("secrets-cluster");
    const url = `${node(first.port)}?cluster=true&node=${node(second.port)}&node=${node(third.port)}&prefix=${prefix}`;
    const store = await openStore(url);
    opened.push(store);
    const thread = await store.create({ id: "cluster-thread" });
    await thread.append({ role: "user", text: "hello" });
    expect(store.url).toContain(`node=redis://:***@127.0.0.1:${second.port}`);
    expectNoSecret([store.url, JSON.stringify(await store.list()), inspect(store)], "store.url");

    expectSkeinBuilt();
    const target = pathToFileURL(join(await temporaryDirectory("secrets-migrate"), "store")).href;
    const migrated = await runSkein(["migrate", "--from", url, "--to", target, "--json", "--quiet"]);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout)).toMatchObject({
      from: expect.stringContaining("node=redis://:***@"),
    });
    expectNoSecret([migrated.stdout, migrated.stderr], "skein migrate --json");

    const refusals: Array<[string, () => Promise<unknown>]> = [
      ["an unknown parameter", () => openStore(`${url}&clustre=1`)],
      ["a node that is not host:port", () => openStore(`${url}&node=redis://:${REDIS_PASSWORD}@[::1`)],
      [
        "a URL that does not parse",
        () => openStore(`redis://:${REDIS_PASSWORD}@127.0.0.1:port?cluster=true`),
      ],
      [
        "redisStore({ url }) that does not parse",
        async () => redisStore({ url: `${node(first.port)}:x?cluster=true` }),
      ],
      ["a Cluster node option that does not parse", async () => redisStore({ cluster: [`${node(1)}:x`] })],
    ];
    for (const [what, call] of refusals) {
      const error = await failure(call);
      expect(error, what).toMatchObject({ name: "InvalidStoreUrlError" });
      expectNoSecret(renderings(error), what);
    }

    // A Cluster that is not there: the error names the URL, without the passwords.
    const [gone, alsoGone] = [await freePort(), await freePort()];
    const down = await failure(() =>
      openStore(`${node(gone)}?cluster=true&node=${node(alsoGone)}&timeout=300`),
    );
    expect(down.message).toContain(`127.0.0.1:${gone}`);
    expectNoSecret(renderings(down), "an unreachable Cluster");
    await store.delete(thread.id);
  });
});
