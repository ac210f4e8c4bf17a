// The same types one release later, each with the migration from version 1.
import { defineStateType, defineThreadType, stateOf, ThreadStateSchema } from "@skein/thread-core";
import { z } from "zod";

export const memoryState = defineStateType({
  type: "acme.memory",
  version: 2,
  schema: z.object({ facts: z.array(z.string()) }),
  migrations: { 1: ({ fact, ...v1 }) => ({ ...v1, facts: [fact] }) },
});

export const noteState = defineStateType({
  type: "acme.note",
  version: 2,
  schema: z.object({ text: z.string().min(1) }),
  migrations: { 1: ({ body, ...v1 }) => ({ ...v1, text: body }) },
});

export const ticketType = defineThreadType({
  type: "acme.ticket",
  version: 2,
  schema: ThreadStateSchema.extend({
    subject: z.string(),
    priority: z.enum(["low", "normal", "high"]),
    notes: z.array(stateOf(noteState)),
  }),
  migrations: { 1: ({ urgent, ...v1 }) => ({ ...v1, priority: urgent ? "high" : "normal" }) },
  local: true,
});

export const receiptType = defineThreadType({
  type: "acme.receipt",
  version: 2,
  schema: ThreadStateSchema.extend({ total: z.number(), currency: z.string() }),
  migrations: { 1: (v1) => ({ ...v1, currency: "EUR" }) },
});
