import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { Message } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { StoreLayout } from "../src/records/store-layout.js";
import { collectOutput, printed, runChild, startChild } from "./child-process.js";
import { seededRandom, stopWhileHolding, until } from "./stopped-writers.js";
import {
  changesOf,
  idsOf,
  killed,
  namesOf,
  OWNERS,
  stagingLeftovers,
  stopWriter,
} from "./takeover-outcomes.js";

// The SIGSTOP takeover loops of lock-takeover.test.ts on an encrypted store: the stopped writer, its taker and
// every reader hold the same key, and each stored unit binds its thread and position, so a fenced-off late
// write, a head moved by a takeover or a seal at the wrong place would read back as an IntegrityError.

/** Low, so that a stopped owner's lock goes stale quickly; far below the waiters' lockTimeoutMs. */
const STALE_MS = 150;
/** How many times each writer is stopped while it holds the lock and taken over, per case. */
const TAKEOVERS = 20;
const random = seededRandom("encrypted-lock-takeover");
/**
 * An encrypted append rewrites the record (its end) under a "record" lock today; a store that lands it in
 * the segment alone takes a "segment" lock: a stop while it holds either is a stop inside its append.
 */
const APPEND_LOCKS = ["record", "segment"];

/** A fresh key, as the store's options and as the children's SKEIN_TEST_KEYS. */
function freshKey() {
  const key = randomBytes(32);
  return {
    encryption: { keys: { "takeover-key": key }, current: "takeover-key" },
    environment: { SKEIN_TEST_KEYS: `takeover-key=${key.toString("hex")}` },
  };
}

/** What the takeover appender writes as the text of the message `A-<index>-<part>`. */
function appenderText(id: string): string {
  const index = Number(id.split("-")[1]);
  return `${id} `.repeat(1 + (index % 40));
}

/** The text of a message, as the reader child prints it. */
function textOf(message: Message): string {
  return message.contents.map((content) => (content.type === "text" ? content.text : "")).join("");
}

/** Every stored file of the store, read whole. */
function storedFiles(directory: string): Array<{ path: string; content: string }> {
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .map((name) => join(directory, name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile())
    .map((path) => ({ path, content: readFileSync(path, "latin1") }));
}

describe("taking over the lock of an encrypted appender that stopped running (SIGSTOP)", () => {
  it.each(Object.entries(OWNERS))(
    "takes a stopped appender's lock over (an owner %s); every acknowledged append reads back decrypted, once, in order",
    async (_owner, disguise) => {
      const directory = await temporaryDirectory();
      const { encryption, environment } = freshKey();
      // A takeover that did not happen would leave this append waiting 10 s, then LockTimeoutError.
      const store = fsStore({ directory, encryption, staleLockMs: STALE_MS, lockTimeoutMs: 10_000 });
      const thread = await store.create({ id: "t" });
      const layout = new StoreLayout(directory);
      const lockPath = layout.threadLockPath("t");
      const child = startChild(
        "takeover-appender.ts",
        [directory, "t", "A", String(STALE_MS), "append"],
        environment,
      );
      const output = collectOutput(child);
      const ours: string[] = [];
      try {
        await printed(output, "ready");
        await until(() => idsOf(output.stdout(), "ack").length > 0, "the writer's first append");
        for (let trial = 0; trial < TAKEOVERS; trial++) {
          await stopWhileHolding(
            child,
            lockPath,
            APPEND_LOCKS,
            random,
            { minGapMs: 1, gapMs: 15, attempts: 400 },
            [layout.referencesLock],
          );
          disguise(lockPath);
          const id = `B-${trial}`;
          await thread.append({ id, role: "user", text: id });
          ours.push(id);
          // While the writer is still stopped, a reader sees the taker's append last, decrypted.
          const last = (await (await store.get("t")).messages()).at(-1);
          expect(last?.id).toBe(id);
          expect(last?.contents).toEqual([{ type: "text", text: id }]);
          const settled = output.stdout().split("\n").length;
          child.kill("SIGCONT");
          await until(() => output.stdout().split("\n").length > settled + 1, "the writer to go on");
        }
        // An IntegrityError (or any error but a lost or unknown lock) in the writer ends it with an exit code.
        await stopWriter(child, output);
      } finally {
        killed(child);
      }
      const acknowledged = idsOf(output.stdout(), "ack");
      const lost = idsOf(output.stdout(), "lost");
      const unknown = new Set(idsOf(output.stdout(), "unknown"));
      console.log(
        `encrypted-lock-takeover: ${TAKEOVERS} takeovers, ${acknowledged.length} acknowledged, ${lost.length} lost, ${unknown.size} unknown`,
      );
      // Read decrypted by another process that shares nothing with the writers.
      const read = (await runChild("read-thread.ts", [directory, "t", "texts"], environment))
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const space = line.indexOf(" ");
          return { id: line.slice(0, space), text: JSON.parse(line.slice(space + 1)) as string };
        });
      const ids = read.map((message) => message.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.filter((id) => !unknown.has(id)).sort()).toEqual([...acknowledged, ...ours].sort());
      const acknowledgedSet = new Set(acknowledged);
      expect(ids.filter((id) => acknowledgedSet.has(id))).toEqual(acknowledged);
      expect(ids.filter((id) => id.startsWith("B-"))).toEqual(ours);
      for (const message of read)
        expect(message.text, message.id).toBe(
          message.id.startsWith("B-") ? message.id : appenderText(message.id),
        );
      // Stored as ciphertext: no acknowledged text (two ids in a row) is found in any file.
      const repeated = acknowledged.filter((id) => appenderText(id).length > id.length + 1);
      for (const { path, content } of storedFiles(directory))
        for (const id of repeated) expect(content.includes(`${id} ${id}`), `${id} in ${path}`).toBe(false);
      // A fresh store reads the same, and the store goes on: the next append lands at the end.
      const reader = fsStore({ directory, encryption });
      expect((await (await reader.get("t")).messages()).map((message) => message.id)).toEqual(ids);
      await (await reader.get("t")).append({ id: "last", role: "user", text: "after" });
      const after = await (await store.get("t")).messages();
      expect(after.map((message) => message.id)).toEqual([...ids, "last"]);
      expect(after.at(-1)?.contents).toEqual([{ type: "text", text: "after" }]);
      expect(stagingLeftovers(directory)).toEqual([]);
      await Promise.all([store.close(), reader.close()]);
    },
    300_000,
  );
});

describe("taking over the lock of an encrypted record writer that stopped running (SIGSTOP)", () => {
  it.each(Object.entries(OWNERS))(
    "takes a stopped record writer's lock over (an owner %s); every acknowledged change reads back decrypted, nothing of a lost one",
    async (_owner, disguise) => {
      const directory = await temporaryDirectory();
      const { encryption, environment } = freshKey();
      const store = fsStore({ directory, encryption, staleLockMs: STALE_MS, lockTimeoutMs: 10_000 });
      const thread = await store.create({ id: "t", title: "encrypted title" });
      await thread.append({ id: "first", role: "user", text: "first" });
      const layout = new StoreLayout(directory);
      const lockPath = layout.threadLockPath("t");
      const seed = String(Math.floor(random() * 100_000));
      const child = startChild(
        "record-writer.ts",
        [directory, "t", "A", String(STALE_MS), "loop", seed],
        environment,
      );
      const output = collectOutput(child);
      const lines = () => output.stdout().split("\n").filter(Boolean);
      const ours: string[] = [];
      try {
        await printed(output, "ready");
        await until(() => output.stdout().includes("ack "), "the writer's first change");
        for (let trial = 0; trial < TAKEOVERS; trial++) {
          // Not while it holds the references lock (never taken over from a live owner: README, Limits).
          await stopWhileHolding(
            child,
            lockPath,
            "record",
            random,
            { minGapMs: 1, gapMs: 15, attempts: 400 },
            [layout.referencesLock],
          );
          disguise(lockPath);
          const current = await store.get("t");
          if (trial % 2 === 0) {
            const label = `B-cp-${trial}`;
            await current.checkpoint(label);
            ours.push(label);
            const last = (await (await store.get("t")).history()).at(-1);
            expect(last?.kind === "checkpoint" && last.checkpoint.label).toBe(label);
          } else {
            const id = `B-${trial}`;
            await current.append({ id, role: "user", text: id });
            expect((await (await store.get("t")).messages()).at(-1)).toMatchObject({
              id,
              contents: [{ type: "text", text: id }],
            });
          }
          const settled = lines().length;
          child.kill("SIGCONT");
          await until(() => lines().length > settled + 1, "the writer to go on");
        }
        await stopWriter(child, output);
      } finally {
        killed(child);
      }
      const acknowledged = changesOf(output.stdout(), "ack");
      const lost = changesOf(output.stdout(), "lost");
      console.log(
        `encrypted-record-takeover: ${TAKEOVERS} takeovers, ${acknowledged.length} acknowledged, ${lost.length} lost`,
      );
      // An IntegrityError in the writer is a "failed" line.
      expect(lines().filter((line) => line.startsWith("failed "))).toEqual([]);
      // Read decrypted by a store that shares nothing with the writers.
      const reader = fsStore({ directory, encryption });
      const again = await reader.get("t");
      const history = await again.history();
      const labels = history.flatMap((event) =>
        event.kind === "checkpoint" ? [event.checkpoint.label] : [],
      );
      expect(labels.filter((label) => label?.startsWith("B-"))).toEqual(ours);
      expect(labels.filter((label) => label?.startsWith("A-"))).toEqual(namesOf(acknowledged, "checkpoint"));
      expect(history.filter((event) => event.kind === "rollback")).toHaveLength(
        namesOf(acknowledged, "rollback").length,
      );
      expect(Object.keys(again.metadata).sort()).toEqual(namesOf(acknowledged, "update").sort());
      expect(again.toJSON().title).toBe("encrypted title");
      // Every message here has its id as its text: a fork's prefix decrypts through the fork as well.
      const idsAsTexts = (messages: Message[]) =>
        messages.map((message) => `${message.id} ${JSON.stringify(textOf(message))}`);
      const sameIdsAndTexts = (messages: Message[]) =>
        messages.map((message) => `${message.id} ${JSON.stringify(message.id)}`);
      for (const fork of namesOf(acknowledged, "fork")) {
        const forked = await (await reader.get(fork)).messages();
        expect(idsAsTexts(forked), `acknowledged fork ${fork}`).toEqual(sameIdsAndTexts(forked));
      }
      for (const fork of namesOf(lost, "fork"))
        await expect(reader.get(fork), `lost fork ${fork}`).rejects.toThrow(/not found|no thread/i);
      const revisions = history.map((event) => event.revision);
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
      expect(new Set(revisions).size).toBe(revisions.length);
      // Every reader agrees: another store, another process (decrypting every message's text).
      expect(JSON.stringify(await reader.export("t"))).toBe(JSON.stringify(await store.export("t")));
      const messages = await again.messages();
      expect(idsAsTexts(messages)).toEqual(sameIdsAndTexts(messages));
      expect(
        (await runChild("read-thread.ts", [directory, "t", "texts"], environment))
          .split("\n")
          .filter(Boolean),
      ).toEqual(sameIdsAndTexts(messages));
      // Stored as ciphertext: no checkpoint label or title is found in any file.
      for (const { path, content } of storedFiles(directory)) {
        expect(content.includes("encrypted title"), path).toBe(false);
        for (const label of ours) expect(content.includes(label), `${label} in ${path}`).toBe(false);
      }
      // The store goes on: a checkpoint and an append after all of it.
      await again.checkpoint("last");
      await (await reader.get("t")).append({ id: "after", role: "user", text: "after" });
      const latest = await store.get("t");
      expect((await latest.history()).at(-1)).toMatchObject({ checkpoint: { label: "last" } });
      expect((await latest.messages()).at(-1)).toMatchObject({
        id: "after",
        contents: [{ type: "text", text: "after" }],
      });
      expect(stagingLeftovers(directory)).toEqual([]);
      await Promise.all([store.close(), reader.close()]);
    },
    300_000,
  );
});
