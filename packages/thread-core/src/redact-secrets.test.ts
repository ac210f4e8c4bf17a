import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ConflictError, SkeinError } from "./errors.js";
import { redactedError, redactSecrets, rememberSecret } from "./redact-secrets.js";
import { redactUrl, redactUrlText } from "./store/redact-url.js";

const secret = () => `proj_${randomBytes(16).toString("hex")}`;

describe("redactSecrets", () => {
  it("scrubs a remembered value whole, without its prefix, and cut short", () => {
    const key = secret();
    rememberSecret(key);
    const body = key.slice("proj_".length);
    const text = `key ${key}; bare ${body}; cut "${body.slice(3, 13)}"... end`;
    const scrubbed = redactSecrets(text);
    expect(scrubbed).toBe('key ***; bare ***; cut "***"... end');
    expect(scrubbed).not.toContain(body.slice(3, 11));
  });

  it("scrubs values given per call, percent-encoded too, and short ones whole", () => {
    const password = `p@ss/${randomBytes(6).toString("hex")}`;
    expect(redactSecrets(`a ${encodeURIComponent(password)} b ${password} c`, [password])).toBe(
      "a *** b *** c",
    );
    expect(redactSecrets("the pin is 4321.", ["4321"])).toBe("the pin is ***.");
    expect(redactSecrets("nothing secret here", ["abc"])).toBe("nothing secret here");
  });

  it("scrubs what is shaped like a credential whatever its value", () => {
    const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
    expect(
      redactSecrets(`Authorization: Bearer abc.def-123 and ${jwt}, sk-abcdefgh123 at redis://u:p@w@h/0`),
    ).toBe("Authorization: Bearer *** and ***, sk-*** at redis://u:***@h/0");
  });
});

describe("redactedError", () => {
  it("copies an error's class and fields, scrubbed down its headers, bodies and causes", () => {
    const key = secret();
    rememberSecret(key);
    const socketError = Object.assign(new Error(`connect failed for ${key}`), { code: "ECONNRESET" });
    const original = new ConflictError(`said ${key}`, undefined, { cause: socketError });
    Object.assign(original, {
      status: 409,
      headers: new Headers({ "x-echo": `Bearer ${key}`, "x-request-id": "req_1" }),
      body: { error: { message: `bad key ${key}`, list: [key, 1] } },
      request: new (class Request {
        readonly authorization = key;
      })(),
    });
    const copy = redactedError(original);
    expect(copy).toBeInstanceOf(ConflictError);
    expect(ConflictError.isInstance(copy)).toBe(true);
    expect(copy).toMatchObject({
      status: 409,
      body: { error: { message: "bad key ***", list: ["***", 1] } },
    });
    expect((copy as unknown as { headers: Headers }).headers.get("x-request-id")).toBe("req_1");
    expect((copy.cause as { code?: string }).code).toBe("ECONNRESET");
    expect("request" in copy).toBe(false);
    for (const text of [
      inspect(copy, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
      JSON.stringify(copy),
      String(copy.stack),
    ]) {
      expect(text).not.toContain(key);
    }
    // The original is the caller's: unchanged.
    expect(original.message).toContain(key);
  });

  it("survives cycles and plain thrown values", () => {
    const error = new SkeinError("loop") as SkeinError & { self?: unknown };
    error.self = error;
    const copy = redactedError(error) as typeof error;
    expect(copy.self).toBe(copy);
    expect(redactedError("Bearer abc.def")).toBe("Bearer ***");
  });
});

describe("store URLs", () => {
  it("hide the passwords of Redis Cluster root nodes in the query", () => {
    const url = new URL(
      "redis://:top@10.0.0.1:7000?cluster=true&node=redis://:n0de-pw@10.0.0.2:7001&node=u:other-pw@h:1&node=redis%3A%2F%2F%3Aenc-pw%4010.0.0.3%3A7002&prefix=app",
    );
    const shown = redactUrl(url);
    for (const password of ["top", "n0de-pw", "other-pw", "enc-pw"]) expect(shown).not.toContain(password);
    expect(shown).toBe(
      "redis://:***@10.0.0.1:7000?cluster=true&node=redis://:***@10.0.0.2:7001&node=u:***@h:1&node=redis://:***@10.0.0.3:7002&prefix=app",
    );
    expect(redactUrlText("redis://:p w@d@h?node=redis://:x y@h2:1")).toBe(
      "redis://:***@h?node=redis://:***@h2:1",
    );
  });

  it("masks the value of a query parameter named like a credential, any case, in URLs and text", () => {
    const url = new URL(
      "postgres://app@127.0.0.1:1/app?password=hunter2hunter2&sslmode=require&SSLPassword=pw-two&Token=t0ken-value&sig=abc%2Fdef&schema=keep_me",
    );
    const shown = redactUrl(url);
    expect(shown).toBe(
      "postgres://app@127.0.0.1:1/app?password=***&sslmode=require&SSLPassword=***&Token=***&sig=***&schema=keep_me",
    );
    for (const name of [
      "pass",
      "passwd",
      "pwd",
      "access_token",
      "secret",
      "key",
      "apikey",
      "api_key",
      "signature",
      "auth",
      "credentials",
    ]) {
      expect(redactUrl(new URL(`https://h/p?a=1&${name}=v4lue-here`)), name).toBe(
        "https://h/p?a=1&" + name + "=***",
      );
      expect(redactSecrets(`GET https://h/p?${name}=v4lue-here failed`), name).toBe(
        `GET https://h/p?${name}=*** failed`,
      );
    }
    expect(
      redactSecrets("connect postgres://app@127.0.0.1:1/app?sslmode=disable&password=hunter2hunter2 refused"),
    ).toBe("connect postgres://app@127.0.0.1:1/app?sslmode=disable&password=*** refused");
    expect(redactSecrets("host=db;Password=hunter2;user=app")).toBe("host=db;Password=***;user=app");
    // A name that merely holds a credential word is not a credential parameter.
    expect(redactSecrets("https://h/p?keyboard=qwerty&monkey=1")).toBe(
      "https://h/p?keyboard=qwerty&monkey=1",
    );
  });
});
