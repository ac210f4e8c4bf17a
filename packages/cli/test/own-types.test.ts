import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistry, openStore, type Registry, type ThreadStore } from "@skein/thread-core";
import { afterAll, describe, expect, inject, it } from "vitest";
import { skein, skeinOk } from "./run-skein.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-own-types-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const V1 = fileURLToPath(new URL("./own-types/acme-types-v1.mjs", import.meta.url));
const V2 = fileURLToPath(new URL("./own-types/acme-types-v2.mjs", import.meta.url));

/** A registry with skein's types and those a types module exports, as `skein --types` would load them. */
async function registryOf(path: string): Promise<Registry> {
  const registry = createRegistry();
  const module = (await import(path)) as Record<string, Parameters<Registry["register"]>[0]>;
  for (const type of Object.values(module)) registry.register(type);
  return registry;
}

type Ticket = { fields: Record<string, unknown> };

describe("your own types through the CLI", () => {
  it("a ticket with nested states written by the fs store is read back migrated by the redis store after skein migrate", async () => {
    const scope = `cli-own-types-${Date.now().toString(36)}`;
    const source = `file:${join(directory, "fs")}`;
    const redis = inject("redisUrl");

    // Written by an older release, through the fs store, with its version-1 types.
    const fs = await openStore(source, { registry: await registryOf(V1) });
    const ticket = await fs.scope(scope).create("acme.ticket", {
      id: "ticket-7",
      subject: "Login broken",
      urgent: true,
      notes: [{ $type: "acme.note", $v: 1, body: "call back" }],
      context: { memory: { $type: "acme.memory", $v: 1, fact: "uses Firefox" } },
    });
    await ticket.append([
      { id: "m1", role: "user", text: "I cannot log in" },
      { id: "m2", role: "assistant", text: "Which browser?" },
    ]);
    const checkpoint = await ticket.checkpoint("asked");
    await ticket.append({ id: "m3", role: "user", text: "Firefox" });
    await fs.scope(scope).save({ $type: "acme.receipt", $v: 1, id: "receipt-1", total: 12 });
    await fs.close();

    // Without the types the CLI cannot read them, and says which type is missing.
    const blind = await skein(["migrate", "--from", source, "--to", redis, "--scope", scope, "--json"]);
    expect(blind.code).toBe(1);
    expect(JSON.parse(blind.stdout).failed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: "ticket-7", error: expect.stringContaining("acme.ticket") }),
      ]),
    );

    const report = JSON.parse(
      await skeinOk(["--types", V2, "migrate", "--from", source, "--to", redis, "--scope", scope, "--json"]),
    );
    expect(report).toMatchObject({ total: 2, copied: 2, failed: [], differing: [] });

    const root = await openStore(redis, { registry: await registryOf(V2) });
    const store: ThreadStore = root.scope(scope);
    try {
      const copy = await store.get("ticket-7");
      expect(copy.type).toBe("acme.ticket");
      expect((copy as unknown as Ticket).fields).toEqual({
        subject: "Login broken",
        priority: "high",
        notes: [{ $type: "acme.note", $v: 2, text: "call back" }],
      });
      expect(copy.context).toEqual({ memory: { $type: "acme.memory", $v: 2, facts: ["uses Firefox"] } });
      expect((await copy.messages()).map((message) => message.id)).toEqual(["m1", "m2", "m3"]);
      const past = await copy.at(checkpoint.id);
      expect((await past.messages()).map((message) => message.id)).toEqual(["m1", "m2"]);
      await copy.append({ id: "m4", role: "assistant", text: "Clear the cache" });
      expect(await store.getState("receipt-1")).toMatchObject({ $v: 2, total: 12, currency: "EUR" });

      // The CLI shows both: the ticket's fields, the receipt's state.
      const shown = await skeinOk(["--types", V2, "--store", redis, "--scope", scope, "show", "ticket-7"]);
      expect(shown).toContain("(acme.ticket)");
      expect(shown).toContain('"priority":"high"');
      const receipt = JSON.parse(
        await skeinOk(["--types", V2, "--store", redis, "--scope", scope, "show", "receipt-1", "--json"]),
      );
      expect(receipt).toMatchObject({ type: "acme.receipt", state: { currency: "EUR", total: 12 } });
    } finally {
      await root.close();
    }
  });

  it("skein schema with --types describes them, nested states by $type", async () => {
    const schema = JSON.parse(await skeinOk(["--types", V2, "schema"], { store: "memory:" }));
    expect(Object.keys(schema.$defs)).toEqual(
      expect.arrayContaining(["acme.ticket", "acme.memory", "acme.note", "acme.receipt", "$nested"]),
    );
    expect(schema.$defs["acme.ticket"].properties.notes.items).toEqual({
      anyOf: [{ $ref: "#/$defs/acme.note" }],
    });
  });

  it("--types whose module throws while loading is its failure (exit 1), with credentials scrubbed", async () => {
    const throwing = fileURLToPath(new URL("./own-types/throwing-types.mjs", import.meta.url));
    const result = await skein(["--types", throwing, "ls"], { store: "memory:" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("boom");
    expect(result.stderr).not.toContain("abcdefghijklmnop");
    expect(result.stderr).not.toContain("abcdefghijklmnopqrstu");
    // A path that is no module at all is still the command line's mistake.
    const missing = await skein(["--types", join(directory, "missing.mjs"), "ls"], { store: "memory:" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("could not be loaded");
  });

  it("--types that exports no types is a usage error", async () => {
    const empty = fileURLToPath(new URL("./own-types/no-types.mjs", import.meta.url));
    const result = await skein(["--types", empty, "ls"], { store: "memory:" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("exports no thread or state types");
  });
});
