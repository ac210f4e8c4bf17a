import type { TokenCredential } from "@azure/identity";

/** The one bearer token the emulator accepts. Tests assert it never shows in states or errors. */
export const TEST_TOKEN = "skein-static-test-token-7d41c0e9b2";

/** A real `TokenCredential` that hands out the static test token (the service is emulated, not the credential). */
export const testCredential: TokenCredential = {
  getToken: async () => ({
    token: TEST_TOKEN,
    expiresOnTimestamp: Date.now() + 3_600_000,
    tokenType: "Bearer",
  }),
};
