import { CREDENTIAL_PARAMETER } from "../redact-secrets.js";

/**
 * The URL without its passwords, for messages and `store.url`: its own, the value of every query parameter
 * named like a credential (`?password=`, `sslpassword`, `token`, `secret`, `key`, `sig`…, any case), and
 * those of URLs in its query (Redis Cluster root nodes, `node=redis://:password@host`).
 */
export function redactUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password) copy.password = "***";
  return copy.href.replace(
    /([?&;])([^=&;#]*)=([^&;#]*)/g,
    (parameter, separator: string, name: string, value: string) => {
      if (CREDENTIAL_PARAMETER.test(decodeParameter(name))) return `${separator}${name}=***`;
      const redacted = redactUrlText(decodeParameter(value));
      return redacted === decodeParameter(value) ? parameter : `${separator}${name}=${redacted}`;
    },
  );
}

/**
 * Text that is, or holds, a URL or a `user:password@host` (valid or not) with every password replaced by
 * `***`: whatever stands between `user:` and the last `@` before the next `/`.
 */
export function redactUrlText(text: string): string {
  return text.replace(/^([^:/?#@\s]*):[^/]*@/, "$1:***@").replace(/(\/\/[^:/?#@]*):[^/]*@/g, "$1:***@");
}

function decodeParameter(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return value;
  }
}
