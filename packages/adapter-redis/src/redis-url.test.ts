import { inspect } from "node:util";
import { InvalidStoreUrlError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { parseRedisUrl } from "./redis-url.js";

describe("redis store URLs", () => {
  it("reads a single server with its database and credentials", () => {
    const settings = parseRedisUrl("rediss://user:pw@cache.internal:6380/2");
    expect(settings.url.href).toBe("rediss://user:pw@cache.internal:6380/2");
    expect(settings.cluster).toBeUndefined();
  });

  it("reads Cluster, root nodes and skein's parameters, and strips them from the server URL", () => {
    const settings = parseRedisUrl(
      "redis://:pw@10.0.0.1:7000?cluster=true&node=10.0.0.2:7001&prefix=app&ttl=60&timeout=2000",
    );
    expect(settings.url.href).toBe("redis://:pw@10.0.0.1:7000");
    expect(settings.cluster).toBe(true);
    expect(settings.nodes.map((node) => node.href)).toEqual(["redis://:pw@10.0.0.2:7001"]);
    expect([settings.prefix, settings.ttlSeconds, settings.commandTimeoutMs]).toEqual(["app", 60, 2000]);
    expect(parseRedisUrl("redis://h:7000?node=h:7001").cluster).toBe(true);
    expect(parseRedisUrl("redis://h:7000?cluster=false").cluster).toBe(false);
  });

  it("names what is wrong without showing the password", () => {
    for (const url of [
      "redis://u:pw@h?clustre=1",
      "redis://u:pw@h?timeout=0",
      "http://h",
      "redis://u:pw@h?node=%20",
      "redis://h?cluster=true&node=redis://:pw@h2:1&clustre=1",
      "redis://h?node=redis://:pw@[::1",
      "redis://u:pw@h:port",
    ]) {
      const error = (() => {
        try {
          parseRedisUrl(url);
        } catch (thrown) {
          return thrown as Error;
        }
      })();
      expect(error).toBeInstanceOf(InvalidStoreUrlError);
      expect(error?.message).not.toContain(":pw@");
      expect(inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(":pw@");
    }
  });
});
