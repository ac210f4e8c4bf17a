import { z } from "zod";
import { contextOf, defineContextProvider, withContextProviders } from "../../context-provider.js";
import { createRegistry } from "../../create-registry.js";
import {
  ConcurrencyError,
  InvalidThreadStateError,
  ThreadNotFoundError,
  UnknownThreadTypeError,
  UnsupportedOperationError,
  UnsupportedVersionError,
} from "../../errors.js";
import { LocalStore } from "../../local/local-store.js";
import type { LogDriver } from "../../local/log-driver.js";
import type { TypedLocalThread } from "../../local/typed-local-thread.js";
import type { ThreadRunner } from "../../runner.js";
import type { ThreadTypeRegistry } from "../../spec/thread-store.js";
import { defineStateType, stateOf } from "../../state-type.js";
import type { ThreadStore } from "../../store/store.js";
import { defineThreadType, type ThreadState, ThreadStateSchema } from "../../thread-type.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

// Types of the conformance suite's own namespace, so they never meet an application's in the shared registry.

/** A plain state type (no behaviour): a receipt, at version 2 (v1 had no currency). */
const receiptType = defineThreadType({
  type: "conformance.receipt",
  version: 2,
  schema: ThreadStateSchema.extend({ total: z.number(), currency: z.string().length(3) }),
  migrations: { 1: (v1) => ({ ...v1, currency: "EUR" }) },
});

/** A nested state type: a context provider's memory, at version 2 (v1 held one `fact`). */
const memoryStateType = defineStateType({
  type: "conformance.memory",
  version: 2,
  schema: z.object({ facts: z.array(z.string()) }),
  migrations: { 1: ({ fact, ...v1 }) => ({ ...v1, facts: typeof fact === "string" ? [fact] : [] }) },
});

/** A nested state for a `stateOf` field: a note, at version 2 (v1 called its text `body`). */
const noteType = defineStateType({
  type: "conformance.note",
  version: 2,
  schema: z.object({ text: z.string().min(1) }),
  migrations: { 1: ({ body, ...v1 }) => ({ ...v1, text: body }) },
});

const TicketV1Schema = ThreadStateSchema.extend({ subject: z.string(), urgent: z.boolean() });
/** A local thread type at version 1, as an older process registered it. */
const ticketV1Type = defineThreadType({
  type: "conformance.ticket",
  version: 1,
  schema: TicketV1Schema,
  local: true,
});

const TicketSchema = ThreadStateSchema.extend({
  subject: z.string().min(1),
  priority: z.enum(["low", "normal", "high"]),
  notes: z.array(stateOf(noteType)).optional(),
});
/** The same local type at version 2: `urgent` became `priority`. */
const ticketType = defineThreadType({
  type: "conformance.ticket",
  version: 2,
  schema: TicketSchema,
  migrations: { 1: ({ urgent, ...v1 }) => ({ ...v1, priority: urgent ? "high" : "normal" }) },
  local: true,
});

type Ticket = { subject: string; priority: "low" | "normal" | "high"; notes?: unknown[] };

function registerOwnTypes(registry: ThreadTypeRegistry): void {
  for (const type of [receiptType, memoryStateType, noteType, ticketType]) registry.ensure(type);
}

/**
 * The same storage seen through another registry (an older process with other type versions): a store
 * over the case store's driver. Every store of the suite is a `LocalStore`; its driver is shared, not closed.
 */
function sameStorage(store: ThreadStore, registry: ThreadTypeRegistry): ThreadStore {
  const driver = (store as unknown as { driver: LogDriver }).driver;
  return new LocalStore({ driver, registry, url: store.url });
}

/** SPEC §3 for types of the application's own: plain states, local thread types, nested states. */
export function ownTypesCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "a plain state type is saved, read migrated, listed, exported, imported and deleted",
    async () => {
      const { store } = context;
      registerOwnTypes(store.registry);
      const v1 = { $type: "conformance.receipt", $v: 1, id: "receipt-1", total: 12, note: "kept" };
      const saved = await store.save(v1 as ThreadState, { ifRevision: 0 });
      const state = await store.getState("receipt-1");
      expect(state).toMatchObject({ $type: "conformance.receipt", $v: 2, total: 12, currency: "EUR" });
      expect(state.note).toBe("kept"); // fields the schema does not know survive
      expect((await store.list()).items).toEqual([
        expect.objectContaining({ id: "receipt-1", type: "conformance.receipt" }),
      ]);
      // Every write takes ifRevision: a stale one writes nothing.
      const stale = await caught(store.save({ ...state, total: 13 }, { ifRevision: saved.revision - 1 }));
      expect(ConcurrencyError.isInstance(stale)).toBe(true);
      await store.save({ ...state, total: 14 }, { ifRevision: saved.revision });
      expect((await store.getState("receipt-1")).total).toBe(14);
      // No behaviour: get refuses and says what to use; open gives the state with every operation refused.
      const refused = await caught(store.get("receipt-1"));
      expect(UnsupportedOperationError.isInstance(refused)).toBe(true);
      expect(refused.message).toContain("getState");
      const opened = await store.open(state);
      expect(opened.type).toBe("conformance.receipt");
      expect(
        UnsupportedOperationError.isInstance(await caught(opened.append({ role: "user", text: "x" }))),
      ).toBe(true);
      const exported = await store.export("receipt-1");
      expect(await store.delete("receipt-1")).toBe(true);
      await expect(store.getState("receipt-1")).rejects.toSatisfy((error) =>
        ThreadNotFoundError.isInstance(error),
      );
      const imported = await store.import(exported);
      expect(imported.toJSON()).toMatchObject({ id: "receipt-1", total: 14, currency: "EUR" });
      expect((await store.getState("receipt-1")).total).toBe(14);
    },
  );

  conformanceCase(
    context,
    "saving an invalid or unregistered state is a typed error and writes nothing",
    async () => {
      const { store } = context;
      registerOwnTypes(store.registry);
      const invalid = await caught(
        store.save({ $type: "conformance.receipt", id: "bad", total: "twelve", currency: "EUR" }),
      );
      expect(InvalidThreadStateError.isInstance(invalid)).toBe(true);
      expect((invalid as InvalidThreadStateError).path).toEqual(["total"]);
      const unknown = await caught(store.save({ $type: "conformance.unregistered", id: "bad" }));
      expect(UnknownThreadTypeError.isInstance(unknown)).toBe(true);
      // Not a state at all: a typed error too, never a raw TypeError.
      for (const nonsense of [null, 42, "text", []]) {
        const error = await caught(store.save(nonsense as unknown as ThreadState));
        expect(InvalidThreadStateError.isInstance(error)).toBe(true);
      }
      expect((await store.list()).items).toEqual([]);
    },
  );

  conformanceCase(
    context,
    "changing the fields or context a local typed thread hands out changes neither the thread nor what it stores",
    async () => {
      const { store } = context;
      registerOwnTypes(store.registry);
      const ticket = (await store.create("conformance.ticket", {
        id: "ticket-shared",
        subject: "Login broken",
        priority: "high",
        notes: [{ $type: "conformance.note", $v: 2, text: "first" }],
        context: { triage: { $type: "conformance.memory", $v: 2, facts: ["seen"] } },
      })) as TypedLocalThread<Ticket>;
      const fields = ticket.fields as Record<string, unknown>;
      const note = (fields.notes as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
      const triage = ticket.context.triage as { facts: string[] };
      // Reflect.set reports a refused write as false (a frozen object) rather than throwing.
      Reflect.set(fields, "subject", 42);
      Reflect.set(note, "text", "");
      Reflect.set(triage.facts, 0, "changed");
      const json = ticket.toJSON() as Record<string, unknown>;
      json.subject = 43;
      (json.context as { triage: { facts: string[] } }).triage.facts.push("added");
      const expectedFields = {
        subject: "Login broken",
        priority: "high",
        notes: [{ $type: "conformance.note", $v: 2, text: "first" }],
      };
      expect(ticket.fields).toEqual(expectedFields);
      expect(ticket.context).toEqual({ triage: { $type: "conformance.memory", $v: 2, facts: ["seen"] } });
      await ticket.update({ fields: { priority: "low" } });
      const stored = (await store.get("ticket-shared")) as TypedLocalThread<Ticket>;
      expect(stored.fields).toEqual({ ...expectedFields, priority: "low" });
      expect(stored.context).toEqual({ triage: { $type: "conformance.memory", $v: 2, facts: ["seen"] } });
    },
  );

  conformanceCase(
    context,
    "a local thread type has every local capability and its typed fields",
    async () => {
      const { store } = context;
      registerOwnTypes(store.registry);
      const ticket = (await store.create("conformance.ticket", {
        id: "ticket-1",
        subject: "Login broken",
        priority: "high",
        metadata: { team: "web" },
      })) as TypedLocalThread<Ticket>;
      expect(ticket.type).toBe("conformance.ticket");
      expect(ticket.fields).toEqual({ subject: "Login broken", priority: "high" });
      expect(ticket.context).toEqual({});
      expect(ticket.toJSON()).toMatchObject({
        $type: "conformance.ticket",
        $v: 2,
        id: "ticket-1",
        subject: "Login broken",
        priority: "high",
        metadata: { team: "web" },
      });
      await ticket.append([
        { id: "a", role: "user", text: "I cannot log in" },
        { id: "b", role: "assistant", text: "Which browser?" },
      ]);
      const checkpoint = await ticket.checkpoint("asked");
      await ticket.append({ id: "c", role: "user", text: "Firefox" });
      const fork = await ticket.fork({ at: "b", id: "ticket-1-fork" });
      expect(fork.type).toBe("conformance.ticket");
      expect((fork as TypedLocalThread<Ticket>).fields.subject).toBe("Login broken");
      await ticket.rollback(checkpoint);
      expect((await ticket.messages()).map((message) => message.id)).toEqual(["a", "b"]);
      expect((await ticket.view({ maxMessages: 1 })).map((message) => message.id)).toEqual(["b"]);
      const revision = ticket.revision;
      // Fields are validated before anything is written.
      const invalid = await caught(ticket.update({ fields: { priority: "urgent" as never } }));
      expect(InvalidThreadStateError.isInstance(invalid)).toBe(true);
      expect((invalid as InvalidThreadStateError).path).toEqual(["priority"]);
      await ticket.refresh();
      expect(ticket.revision).toBe(revision);
      await ticket.update({ fields: { priority: "low" } });
      await ticket.update({ context: { triage: { seen: true } } }); // the context does not touch the fields
      // The key the fields are kept under is no context state's name.
      const reserved = await caught(ticket.update({ context: { $fields: { subject: "x" } } }));
      expect(InvalidThreadStateError.isInstance(reserved)).toBe(true);
      const plain = await caught(store.create({ id: "plain", context: { $fields: {} } }));
      expect(InvalidThreadStateError.isInstance(plain)).toBe(true);
      const again = (await store.get("ticket-1")) as TypedLocalThread<Ticket>;
      expect(again.fields).toEqual({ subject: "Login broken", priority: "low" });
      expect(again.context).toEqual({ triage: { seen: true } });
      expect(again.revision).toBe((revision ?? 0) + 2);
      expect((await store.list()).items.map((item) => [item.id, item.type])).toEqual([
        ["ticket-1", "conformance.ticket"],
        ["ticket-1-fork", "conformance.ticket"],
      ]);
      // Its export carries its type, fields and whole history; importing it gives the same kind of thread.
      const exported = JSON.parse(JSON.stringify(await store.export("ticket-1")));
      expect(exported).toMatchObject({
        $type: "conformance.ticket",
        subject: "Login broken",
        priority: "low",
      });
      expect(exported.context).toEqual({ triage: { seen: true } });
      const copy = (await store.import(exported, { id: "ticket-copy" })) as TypedLocalThread<Ticket>;
      expect(copy.type).toBe("conformance.ticket");
      expect(copy.fields.priority).toBe("low");
      expect((await copy.history()).map((event) => event.kind)).toEqual(["checkpoint", "rollback"]);
      const reopened = await store.open(ticket.toJSON());
      expect((reopened as TypedLocalThread<Ticket>).fields.priority).toBe("low");
      // Bad fields at creation are refused before anything is written.
      const refused = await caught(store.create("conformance.ticket", { id: "ticket-bad", subject: "" }));
      expect(InvalidThreadStateError.isInstance(refused)).toBe(true);
      await expect(store.get("ticket-bad")).rejects.toSatisfy((error) =>
        ThreadNotFoundError.isInstance(error),
      );
    },
  );

  conformanceCase(context, "a stored v1 local thread is migrated when read by a newer type", async () => {
    const { store } = context;
    registerOwnTypes(store.registry);
    const older = sameStorage(store, createRegistry().register(ticketV1Type));
    const written = await older.create("conformance.ticket", {
      id: "old-ticket",
      subject: "Printer",
      urgent: true,
    });
    await written.append({ id: "m1", role: "user", text: "It jams" });
    expect(written.toJSON()).toMatchObject({ $v: 1, urgent: true });
    const read = (await store.get("old-ticket")) as TypedLocalThread<Ticket>;
    expect(read.fields).toEqual({ subject: "Printer", priority: "high" });
    expect(read.toJSON()).toMatchObject({ $type: "conformance.ticket", $v: 2, priority: "high" });
    expect(read.toJSON()).not.toHaveProperty("urgent");
    expect((await read.messages()).map((message) => message.id)).toEqual(["m1"]);
    // The v1 export, imported through the newer registry, arrives migrated.
    const copy = (await store.import(await older.export("old-ticket"), {
      id: "old-copy",
    })) as TypedLocalThread<Ticket>;
    expect(copy.fields).toEqual({ subject: "Printer", priority: "high" });
    // A process without the type still changes the thread's context and metadata, fields left as they are.
    const unaware = sameStorage(store, createRegistry());
    const carried = await unaware.get("old-ticket");
    await carried.update({ metadata: { seen: true } });
    expect((await older.get("old-ticket")).toJSON()).toMatchObject({
      $v: 1,
      urgent: true,
      metadata: { seen: true },
    });
    await read.refresh();
    // A change writes the fields at the current version, which the older type then cannot read.
    await read.update({ metadata: { touched: true } });
    expect(UnsupportedVersionError.isInstance(await caught(older.export("old-ticket")))).toBe(true);
  });

  conformanceCase(
    context,
    "nested states in the context and in stateOf fields are validated and migrated",
    async () => {
      const { store } = context;
      registerOwnTypes(store.registry);
      const thread = await store.create({
        id: "with-memory",
        context: { memory: { $type: "conformance.memory", $v: 1, fact: "likes tea" }, plain: { n: 1 } },
      });
      expect(thread.context).toEqual({
        memory: { $type: "conformance.memory", $v: 2, facts: ["likes tea"] },
        plain: { n: 1 },
      });
      const invalid = await caught(
        thread.update({
          context: { memory: { $type: "conformance.memory", $v: 2, facts: ["a", "b", 3] } },
        }),
      );
      expect(InvalidThreadStateError.isInstance(invalid)).toBe(true);
      expect((invalid as InvalidThreadStateError).path).toEqual(["context", "memory", "facts", 2]);
      expect(invalid.message).toContain("context.memory.facts[2]");
      const exported = JSON.parse(JSON.stringify(await store.export("with-memory")));
      expect(exported.context.memory).toEqual({ $type: "conformance.memory", $v: 2, facts: ["likes tea"] });
      // A ticket's notes are declared with stateOf: each is parsed through the registry where it sits.
      const ticket = (await store.create("conformance.ticket", {
        id: "noted",
        subject: "Noted",
        priority: "normal",
        notes: [{ $type: "conformance.note", $v: 1, body: "call back" }],
      })) as TypedLocalThread<Ticket>;
      expect(ticket.fields.notes).toEqual([{ $type: "conformance.note", $v: 2, text: "call back" }]);
      const badNote = await caught(
        ticket.update({ fields: { notes: [{ $type: "conformance.note", $v: 2, text: "" }] } }),
      );
      expect((badNote as InvalidThreadStateError).path).toEqual(["notes", 0, "text"]);
    },
  );

  conformanceCase(
    context,
    "a context provider's state is stored with its state type and migrated when read",
    async () => {
      const { store } = context;
      registerOwnTypes(store.registry);
      const memory = defineContextProvider({
        name: "memory",
        stateType: memoryStateType,
        initialState: () => ({ facts: [] }),
        invoked: ({ state, messages }) => ({
          facts: [...(state?.facts ?? []), ...messages.map((message) => message.id)],
        }),
      });
      const runner: ThreadRunner = {
        specificationVersion: "v1",
        supports: () => true,
        run: (thread) => thread.append({ role: "assistant", text: "ok" }),
      };
      // A state written at version 1 by a process that does not know the type (kept as it was) is read migrated.
      const unaware = sameStorage(store, createRegistry().register(ticketV1Type));
      await unaware.create("conformance.ticket", {
        id: "remembering",
        subject: "Remember",
        urgent: false,
        context: { memory: { $type: "conformance.memory", $v: 1, fact: "tea" } },
      });
      const ticket = await store.get("remembering");
      expect(ticket.context).toEqual({ memory: { $type: "conformance.memory", $v: 2, facts: ["tea"] } });
      await ticket.append({ id: "u1", role: "user", text: "hi" });
      await withContextProviders(runner, [memory]).run(ticket);
      const again = await store.get("remembering");
      expect(contextOf(again, [memory]).memory).toEqual({
        $type: "conformance.memory",
        $v: 2,
        facts: ["tea", "u1"],
      });
      expect((again as TypedLocalThread<Ticket>).fields).toEqual({ subject: "Remember", priority: "normal" });
    },
  );

  conformanceCase(context, "a nested state of a type not registered here is kept byte-equal", async () => {
    const { store } = context;
    registerOwnTypes(store.registry);
    const foreign = { $type: "elsewhere.state", z: [1, { b: 2, a: "ü" }], a: null };
    const thread = await store.create({ id: "foreign", context: { other: foreign } });
    await thread.append({ id: "m", role: "user", text: "hi" });
    const exported = await store.export("foreign");
    expect(JSON.stringify((exported.context as Record<string, unknown>).other)).toBe(JSON.stringify(foreign));
    const preserved = (await store.getState("foreign", { unknown: "preserve" })) as ThreadState;
    expect(JSON.stringify(preserved.context?.other)).toBe(JSON.stringify(foreign));
    // Read strictly, the unknown type is an error that names it.
    const strict = await caught(store.getState("foreign"));
    expect(UnknownThreadTypeError.isInstance(strict)).toBe(true);
    const copy = await store.import(JSON.parse(JSON.stringify(exported)), { id: "foreign-copy" });
    expect(JSON.stringify(copy.context.other)).toBe(JSON.stringify(foreign));
  });
}
