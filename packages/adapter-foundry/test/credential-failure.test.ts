import type { TokenCredential } from "@azure/identity";
import { SkeinError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { FoundryCredentialError } from "../src/index.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

/** A credential that cannot give a token, as DefaultAzureCredential on a machine without a login; its message quotes a token. */
const SECRET = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJza2VpbiJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg";
const failingCredential: TokenCredential = {
  getToken: async () => {
    throw new Error(`AADSTS7000215: the assertion ${SECRET} has expired`);
  },
};

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );
}

describe("a credential that cannot give a token", () => {
  const kinds: [type: string, options: Record<string, string>, client: string][] = [
    ["foundry.conversation", { agentName: "echo" }, "the OpenAI-compatible client"],
    ["foundry.thread", { agentId: "asst_echo" }, "the Azure agents client"],
  ];
  it.each(kinds)("fails %s with a typed FoundryCredentialError (%s, through %s)", async (type, options) => {
    const store = await fixture.store({ credential: failingCredential });
    const error = await failure(store.create(type, options));
    expect(FoundryCredentialError.isInstance(error)).toBe(true);
    expect(SkeinError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/^\[adapter-foundry\] /);
    expect(message).toContain("AADSTS7000215");
    expect(message).not.toContain(SECRET);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(SECRET);
    await store.close();
  });
});
