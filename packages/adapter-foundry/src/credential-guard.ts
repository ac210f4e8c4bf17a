import type { AIProjectClient } from "@azure/ai-projects";
import type { AccessToken, TokenCredential } from "@azure/identity";
import { redactedError, rememberSecret } from "@skein/thread-core/driver";
import { FoundryCredentialError } from "./errors.js";

/** The scope of Foundry's tokens, as `AIProjectClient.getOpenAIClient()` asks for it. */
export const FOUNDRY_SCOPE = "https://ai.azure.com/.default";

/** Credentials already guarded, so a guard is never wrapped in another. */
const guarded = new WeakSet<TokenCredential>();

/**
 * The credential, failing as `FoundryCredentialError` whenever it gives no token (it throws, or resolves
 * null or an empty token) and remembering each token it hands out (`rememberSecret`), so no error can quote
 * one back. Both SDKs pass the guard's error on before sending anything (the Azure pipeline as it is, the
 * openai client as the `cause` of its own), and `mapServiceError` finds it there.
 */
export function guardedCredential(credential: TokenCredential): TokenCredential {
  if (guarded.has(credential)) return credential;
  const guard: TokenCredential = {
    async getToken(scopes, options) {
      let token: AccessToken | null;
      try {
        token = await credential.getToken(scopes, options);
      } catch (error) {
        // An abort or deadline is the caller's, not the credential's: callService reports it as such.
        if (options?.abortSignal?.aborted) throw error;
        throw credentialFailure(error);
      }
      if (!token?.token) {
        const answer = token === null ? "null" : "an access token with no token in it";
        throw credentialFailure(
          new Error(`${credentialName(credential)}.getToken(${JSON.stringify(scopes)}) resolved ${answer}.`),
        );
      }
      rememberSecret(token.token);
      return token;
    },
  };
  guarded.add(guard);
  return guard;
}

/** The typed error for what a credential (or the bearer policy that asked it) failed with. */
export function credentialFailure(error: unknown): FoundryCredentialError {
  if (FoundryCredentialError.isInstance(error)) return error;
  // noToken scrubs the message of remembered and token-shaped secrets; the cause is scrubbed the same way.
  return FoundryCredentialError.noToken(error instanceof Error ? error.message : String(error), {
    cause: redactedError(error),
  });
}

/**
 * The credential a ready `AIProjectClient` was built with, so the OpenAI-compatible client derived from it,
 * and an agents client built for its project, ask it through `guardedCredential`. The SDK offers no
 * accessor: it keeps the credential in `_credential`, a field its types call private (read here only);
 * undefined if a later SDK keeps it elsewhere, and the client's own token function stays in use.
 */
export function projectCredential(projectClient: AIProjectClient): TokenCredential | undefined {
  const credential = (projectClient as unknown as { _credential?: unknown })._credential;
  return typeof (credential as TokenCredential | undefined)?.getToken === "function"
    ? (credential as TokenCredential)
    : undefined;
}

function credentialName(credential: TokenCredential): string {
  const name = (credential as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "Object" && name !== "" ? name : "The credential";
}
