import type { AgentsClient } from "@azure/ai-agents";
import { bearerTokenAuthenticationPolicyName, createPipelineRequest } from "@azure/core-rest-pipeline";
import { rememberSecret } from "@skein/thread-core/driver";
import { credentialFailure } from "./credential-guard.js";

/** Resolves once a client's credential gives a token, sending nothing; else rejects with `FoundryCredentialError`. */
export type CredentialCheck = (signal: AbortSignal) => Promise<void>;

/**
 * A check that asks an agents client's own bearer-token policy for a token, as `getBearerTokenProvider`
 * does: a request that stops at a stand-in for the network. A ready client keeps its credential inside
 * that policy, out of reach, and the pipeline passes on whatever the credential threw (or a bare error for
 * a null token), so a failure there cannot be told apart from others once the call is made; checked
 * first, it is a credential failure by construction. The policy caches its token, so the call that follows
 * asks the credential nothing more. Undefined when the client authenticates without a bearer policy.
 */
export function bearerTokenCheck(
  client: AgentsClient,
  endpoint: string | undefined,
): CredentialCheck | undefined {
  const policy = client.pipeline
    .getOrderedPolicies()
    .find((candidate) => candidate.name === bearerTokenAuthenticationPolicyName);
  if (!policy) return undefined;
  // The policy refuses URLs that are not https:; the request never leaves, so any https: URL will do.
  const url = endpoint ?? "https://ai.azure.com/";
  return async (signal) => {
    let token: string | undefined;
    try {
      await policy.sendRequest(createPipelineRequest({ url, abortSignal: signal }), async (request) => {
        token = request.headers.get("authorization")?.replace(/^\S+\s+/, "");
        return { request, status: 200, headers: request.headers };
      });
    } catch (error) {
      if (signal.aborted) throw error; // the caller's abort or the deadline: callService reports those
      throw credentialFailure(error);
    }
    if (!token) throw credentialFailure(new Error("The agents client's credential gave no token."));
    rememberSecret(token);
  };
}
