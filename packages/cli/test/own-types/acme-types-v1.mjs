// The types as an older release of an application registered them: a ticket without a priority, a
// memory that holds one fact. `skein --types` loads modules like this one.
import { defineStateType, defineThreadType, stateOf, ThreadStateSchema } from "@skein/thread-core";
import { z } from "zod";

export const memoryState = defineStateType({
  type: "acme.memory",
  version: 1,
  schema: z.object({ fact: z.string() }),
});

export const noteState = defineStateType({
  type: "acme.note",
  version: 1,
  schema: z.object({ body: z.string() }),
});

export const ticketType = defineThreadType({
  type: "acme.ticket",
  version: 1,
  schema: ThreadStateSchema.extend({
    subject: z.string(),
    urgent: z.boolean(),
    notes: z.array(stateOf(noteState)),
  }),
  local: true,
});

export const receiptType = defineThreadType({
  type: "acme.receipt",
  version: 1,
  schema: ThreadStateSchema.extend({ total: z.number() }),
});
