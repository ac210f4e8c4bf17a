import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** A fresh random token: 32 bytes, URL-safe. */
export function newAccessToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * The token a request carries: the `x-skein-token` header (what the page's own requests send), else the
 * `token` query parameter (what the printed URL and the page's asset links carry).
 */
export function requestToken(request: IncomingMessage, url: URL): string | undefined {
  const header = request.headers["x-skein-token"];
  if (typeof header === "string") return header;
  return url.searchParams.get("token") ?? undefined;
}

/** Compares in constant time, so response timing does not reveal how much of a guess was right. */
export function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Only loopback names are accepted as Host: a page on another site that rebinds its DNS name to
 * 127.0.0.1 sends its own name, and is refused before the token is even looked at.
 */
export function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
}

/** Headers on every response: nothing from elsewhere may load, nothing may frame the page, no referrer. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "cross-origin-resource-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-store",
};
