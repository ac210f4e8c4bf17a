/**
 * Token-shaped text: `Bearer …` headers and JWTs (Entra ID access tokens are JWTs). A service or proxy may
 * quote the request it refused in an error body, so every text that leaves this package in an error is
 * scrubbed of these.
 */
const BEARER = /\bBearer\s+[A-Za-z0-9\-._~+/]+=*/g;
const JWT = /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/** The text with bearer headers and JWT-shaped tokens replaced by `***`. */
export function redactSecrets(text: string): string {
  return text.replace(BEARER, "Bearer ***").replace(JWT, "***");
}
