/**
 * Credentials never leave skein in an error or in a stored failure. Adapters remember the exact values their
 * clients hold (an API key, each token a credential hands out) with `rememberSecret`; `redactSecrets` then
 * replaces every run of 8 or more of their characters (the whole key, the key quoted without its `sk-`
 * prefix, or cut short in a parser's excerpt) with `***`, together with what is shaped like a credential
 * whatever its value: `Bearer …` headers, JWTs, `sk-…` keys, the password of a URL's `user:password@` and
 * the value of a query parameter named like a credential (`?password=`, `&token=`, `;sig=`…).
 */

/** A run this long taken from a secret is treated as the secret itself. */
const FRAGMENT_LENGTH = 8;
/** Shorter values are matched whole; shorter still, they would scrub ordinary words. */
const SHORTEST_SECRET = 4;
/** The registry keeps the newest this many values: tokens rotate, and memory must stay flat. */
const REMEMBERED_LIMIT = 256;
/** Nested objects of an error kept deeper than this are left out of its scrubbed copy. */
const COPY_DEPTH = 8;

/**
 * Query parameters whose value is a credential, whatever the URL (`?password=` for PostgreSQL, `?token=`,
 * a signed URL's `sig=`): matched whole and case-insensitively by `redactSecrets` and `redactUrl`.
 */
export const CREDENTIAL_PARAMETER =
  /^(?:(?:ssl)?pass(?:word|wd)?|pwd|(?:access_|refresh_|id_|auth_)?token|(?:client_)?secret|(?:api_?)?key|sig|signature|auth|credentials?)$/i;

const CREDENTIAL_SHAPES: ReadonlyArray<[RegExp, string]> = [
  [/(\/\/[^:/?#@\s]*):[^/\s]*@/g, "$1:***@"],
  [
    /([?&;](?:(?:ssl)?pass(?:word|wd)?|pwd|(?:access_|refresh_|id_|auth_)?token|(?:client_)?secret|(?:api_?)?key|sig|signature|auth|credentials?)=)[^&;#\s"'<>]+/gi,
    "$1***",
  ],
  [/\bBearer\s+[A-Za-z0-9\-._~+/]+=*/g, "Bearer ***"],
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, "***"],
  // Services mask a refused key as `sk-abc****wxyz`: the mask is scrubbed whole, its ends included.
  [/\bsk-[A-Za-z0-9_*.-]{3,}/g, "sk-***"],
];

interface SecretIndex {
  /** Every run of FRAGMENT_LENGTH characters of a long secret. */
  fragments: Set<string>;
  /** Secrets too short to cut into fragments, matched whole. */
  whole: string[];
}

interface Remembered {
  values: Set<string>;
  index: SecretIndex | undefined;
}

/** One registry per process, shared by duplicate installs of thread-core, as `SkeinError.isInstance` is. */
function remembered(): Remembered {
  const key = Symbol.for("skein.secrets");
  const holder = globalThis as unknown as Record<symbol, Remembered | undefined>;
  holder[key] ??= { values: new Set(), index: undefined };
  return holder[key];
}

/**
 * Remembers a credential a client holds, so every error and stored failure is scrubbed of it from now on.
 * Adapters call it with the keys and tokens they are given or handed; call it yourself for credentials
 * skein cannot see (headers an A2A client factory adds). Values shorter than 4 characters are ignored.
 */
export function rememberSecret(value: string | null | undefined): void {
  if (typeof value !== "string" || value.length < SHORTEST_SECRET) return;
  const registry = remembered();
  if (registry.values.has(value)) {
    // Newest last, so the oldest is dropped first.
    registry.values.delete(value);
    registry.values.add(value);
    return;
  }
  registry.values.add(value);
  for (const oldest of registry.values) {
    if (registry.values.size <= REMEMBERED_LIMIT) break;
    registry.values.delete(oldest);
  }
  registry.index = undefined;
}

function indexOf(secrets: Iterable<string>): SecretIndex {
  const index: SecretIndex = { fragments: new Set(), whole: [] };
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret.length < SHORTEST_SECRET) continue;
    // A URL or a form may carry the value percent-encoded.
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      if (form.length < FRAGMENT_LENGTH) {
        index.whole.push(form);
        continue;
      }
      for (let at = 0; at + FRAGMENT_LENGTH <= form.length; at++) {
        index.fragments.add(form.slice(at, at + FRAGMENT_LENGTH));
      }
    }
  }
  return index;
}

function rememberedIndex(): SecretIndex {
  const registry = remembered();
  registry.index ??= indexOf(registry.values);
  return registry.index;
}

/**
 * The text with every remembered credential, every one of `secrets`, and anything shaped like a credential
 * replaced by `***`.
 */
export function redactSecrets(text: string, secrets: Iterable<string> = []): string {
  const indexes = [rememberedIndex(), indexOf(secrets)];
  const hidden = new Uint8Array(text.length);
  let found = false;
  for (const index of indexes) {
    if (index.fragments.size > 0) {
      for (let at = 0; at + FRAGMENT_LENGTH <= text.length; at++) {
        if (!index.fragments.has(text.slice(at, at + FRAGMENT_LENGTH))) continue;
        hidden.fill(1, at, at + FRAGMENT_LENGTH);
        found = true;
      }
    }
    for (const secret of index.whole) {
      for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
        hidden.fill(1, at, at + secret.length);
        found = true;
      }
    }
  }
  let result = found ? "" : text;
  if (found) {
    for (let at = 0; at < text.length; at++) {
      if (!hidden[at]) result += text[at];
      else if (at === 0 || !hidden[at - 1]) result += "***";
    }
  }
  for (const [shape, replacement] of CREDENTIAL_SHAPES) result = result.replace(shape, replacement);
  return result;
}

/**
 * A copy of an error to keep as `cause`, scrubbed like `redactSecrets` all the way down: its message,
 * stack and every own field, response headers, parsed bodies and its own causes. The copy keeps the
 * original's class (`instanceof` holds); objects that may hold credentials where they cannot be read and
 * scrubbed (requests, responses, sockets: anything not plain data, an error or `Headers`) are left out.
 * The original is not changed.
 */
export function redactedError<T>(error: T, secrets: Iterable<string> = []): T {
  const list = [...secrets];
  return scrubbedCopy(error, (text) => redactSecrets(text, list), 0, new Map()) as T;
}

function scrubbedCopy(
  value: unknown,
  scrub: (text: string) => string,
  depth: number,
  copies: Map<object, unknown>,
): unknown {
  if (typeof value === "string") return scrub(value);
  if (typeof value === "function") return undefined;
  if (typeof value !== "object" || value === null) return value;
  if (copies.has(value)) return copies.get(value);
  if (depth > COPY_DEPTH) return undefined;
  if (typeof Headers === "function" && value instanceof Headers) {
    const headers = new Headers();
    for (const [name, headerValue] of value) headers.set(name, scrub(headerValue));
    return headers;
  }
  if (value instanceof Date) return new Date(value.getTime());
  let copy: object;
  if (Array.isArray(value)) copy = [];
  else if (value instanceof Error) {
    // A native error, so inspectors show it as one, with the original's class.
    copy = new Error();
    delete (copy as { stack?: string }).stack;
    Object.setPrototypeOf(copy, Object.getPrototypeOf(value));
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return undefined;
    copy = Object.create(prototype) as object;
  }
  copies.set(value, copy);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    // Getters are skipped: calling them could read what a copy must not hold.
    if (!descriptor || !("value" in descriptor)) continue;
    if (Array.isArray(copy) && key === "length") continue;
    const field = scrubbedCopy(descriptor.value, scrub, depth + 1, copies);
    if (field === undefined && descriptor.value !== undefined) continue;
    Object.defineProperty(copy, key, { ...descriptor, value: field });
  }
  return copy;
}
