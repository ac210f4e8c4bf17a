// A runner's own error may quote a credential a client holds: the service's rejection and its `failed` event
// carry that error's text and the error as `cause`, and neither may carry the credential.
import { randomBytes } from "node:crypto";
import { openStore } from "@skein/thread-core";
import { rememberSecret } from "@skein/thread-core/driver";
import { expect, it } from "vitest";
import { createThreadService, type ServiceEvent, ThreadProcessingError } from "../src/index.js";

it("scrubs remembered credentials from a failed run's rejection, its cause and its failed event", async () => {
  const secret = `tok-${randomBytes(12).toString("hex")}`;
  rememberSecret(secret);
  const store = await openStore("memory:");
  const service = createThreadService({
    store,
    runner: {
      specificationVersion: "v1",
      supports: () => true,
      async run() {
        throw new Error(`the service refused ${secret} for this model`);
      },
    },
  });
  const { threadId } = await service.createThread();
  const events = service.events(threadId);
  const error = await service.send(threadId, "hello").catch((caught: unknown) => caught);
  expect(ThreadProcessingError.isInstance(error)).toBe(true);
  const failed = error as ThreadProcessingError;
  expect(failed.message).toContain("the service refused *** for this model");
  await service.close();
  const seen: ServiceEvent[] = [];
  for await (const event of events) seen.push(event);
  const event = seen.find((candidate) => candidate.type === "failed");
  expect(event).toBeDefined();
  for (const reported of [failed, (event as { error: Error }).error]) {
    expect(reported.message).not.toContain(secret);
    expect(reported.stack ?? "").not.toContain(secret);
    const cause = reported.cause as Error;
    expect(cause).toBeInstanceOf(Error);
    expect(cause.message).toBe("the service refused *** for this model");
    expect(cause.stack ?? "").not.toContain(secret);
  }
  await store.close();
});
