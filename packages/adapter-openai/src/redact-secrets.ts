/**
 * Key-shaped tokens (`sk-…`, `sk-proj-…`, `Bearer …`): services and proxies sometimes quote the key they
 * were sent in an error body, so every text that leaves this package through an error is scrubbed.
 */
const KEY_PATTERN = /\b(sk-[A-Za-z0-9_*.-]{3,}|Bearer\s+[A-Za-z0-9_*.-]{3,})/g;

/** The text with `secrets` and anything shaped like an API key replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= 4) result = result.split(secret).join("***");
  }
  return result.replace(KEY_PATTERN, (match) => (match.startsWith("Bearer") ? "Bearer ***" : "sk-***"));
}

/** Scrubs the message and body of an SDK error in place, so a kept `cause` cannot carry a key either. */
export function redactErrorInPlace(error: unknown, secrets: readonly string[]): void {
  if (!(error instanceof Error)) return;
  error.message = redactSecrets(error.message, secrets);
  const body = (error as { error?: unknown }).error;
  if (body !== undefined && body !== null && typeof body === "object") {
    (error as { error?: unknown }).error = JSON.parse(redactSecrets(JSON.stringify(body), secrets));
  }
}
