// What the encrypted-store tests of every adapter share: keys for a test store, and a store filled with a
// plaintext marker in every place encryption promises to hide, read back through the store.
import { randomBytes } from "node:crypto";
import type { LogThread, ThreadStore } from "@skein/thread-core";
import type { EncryptionOptions } from "@skein/thread-core/driver";

/** A text planted everywhere: found in a backend's bytes, it is plaintext that should have been sealed. */
export const PLANTED_MARKER = "PLANTED-MARKER-c0ffee";

/** Encryption options with a fresh random key, for one test store. */
export function testEncryption(): EncryptionOptions {
  return { keys: { "test-2026-12": randomBytes(32) }, current: "test-2026-12" };
}

/**
 * Fills `store` with the marker in every message (text, reasoning, a tool call's arguments and result, the
 * author, message metadata), in titles, metadata, context and checkpoint labels, across a fork, a rollback
 * and an edit, then reads it all back: what went in comes out.
 */
export async function plantMarkers(store: ThreadStore): Promise<void> {
  const marker = PLANTED_MARKER;
  const thread = await store.create({
    id: "planted",
    owner: "owner-1",
    title: `title ${marker}`,
    metadata: { topic: `metadata ${marker}` },
  });
  await thread.update({ context: { memory: { facts: [`context ${marker}`] } } });
  await thread.append([
    { id: "m1", role: "system", text: `system ${marker}` },
    {
      id: "m2",
      role: "user",
      text: `user ${marker}`,
      authorName: `author-${marker}`,
      metadata: { note: marker },
    },
    {
      id: "m3",
      role: "assistant",
      contents: [
        { type: "reasoning", text: `reasoning ${marker}` },
        { type: "function_call", callId: "call-1", name: "lookup", arguments: { query: marker } },
      ],
    },
    {
      id: "m4",
      role: "tool",
      contents: [{ type: "function_result", callId: "call-1", result: { found: marker } }],
    },
  ]);
  const checkpoint = await thread.checkpoint(`label ${marker}`);
  await thread.append({ id: "m5", role: "user", text: `abandoned ${marker}` });
  await thread.rollback(checkpoint);
  const fork = await thread.fork({ title: `fork title ${marker}` });
  await fork.append({ id: "f1", role: "user", text: `fork ${marker}` });
  await thread.edit?.("m2", { role: "user", text: `edited ${marker}` });

  const forked = JSON.stringify(await (await store.get(fork.id)).messages());
  if (!forked.includes(`reasoning ${marker}`) || !forked.includes(`fork ${marker}`)) {
    throw new Error("plantMarkers: the fork's messages did not come back through the store");
  }
  const again = await store.get("planted");
  const texts = JSON.stringify(await again.messages());
  for (const part of ["system", "edited"]) {
    if (!texts.includes(part)) throw new Error(`plantMarkers: "${part}" did not come back through the store`);
  }
  if (!JSON.stringify(await again.history()).includes(`label ${marker}`)) {
    throw new Error("plantMarkers: the checkpoint label did not come back through the store");
  }
  const listed = await store.list({ owner: "owner-1" });
  if (!listed.items.some((item) => item.title === `title ${marker}`)) {
    throw new Error("plantMarkers: the title did not come back through the store's listing");
  }
}

/**
 * A thread of `owner-1` with a reply left streaming (as a crashed writer leaves it): one batch holding the
 * marker, in a segment of the reply's own that no record points at, only the record's `$streams` entry.
 */
export async function plantStreamingReply(store: ThreadStore): Promise<void> {
  const thread = await store.create({ id: "streaming", owner: "owner-1" });
  const reply = await (thread as LogThread).beginMessage({ role: "assistant", maxBatchBytes: 1 });
  await reply.write(`delta ${PLANTED_MARKER}`);
}
