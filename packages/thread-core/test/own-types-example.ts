import {
  contextOf,
  createRegistry,
  defineContextProvider,
  defineStateType,
  defineThreadType,
  messageText,
  openStore,
  parseThreadState,
  type ThreadRunner,
  ThreadStateSchema,
  type TypedLocalThread,
  withContextProviders,
} from "@skein/thread-core";
import { z } from "zod";

// A context provider's state: what it remembers. Version 1 held one `fact`; version 2 holds `facts`.
export const memoryState = defineStateType({
  type: "acme.memory",
  version: 2,
  schema: z.object({ facts: z.array(z.string()) }),
  migrations: { 1: ({ fact, ...v1 }) => ({ ...v1, facts: [String(fact)] }) },
});

// A ticket: a local thread of whatever store holds it, with typed fields.
// Version 1 had `urgent: boolean`; version 2 has `priority`.
export const ticketType = defineThreadType({
  type: "acme.ticket",
  version: 2,
  schema: ThreadStateSchema.extend({
    subject: z.string().min(1),
    priority: z.enum(["low", "normal", "high"]),
  }),
  migrations: { 1: ({ urgent, ...v1 }) => ({ ...v1, priority: urgent ? "high" : "normal" }) },
  local: true,
});
type Ticket = { subject: string; priority: "low" | "normal" | "high" };

// The provider's state lives in thread.context.memory, stored as an "acme.memory" state.
export const memory = defineContextProvider({
  name: "memory",
  stateType: memoryState,
  initialState: () => ({ facts: [] }),
  invoking: ({ state }) => ({ instructions: `Known: ${state?.facts.join("; ")}` }),
  invoked: ({ state, messages }) => ({ facts: [...(state?.facts ?? []), ...messages.map(messageText)] }),
});

// Your model runner (openaiRunner from @skein/adapter-openai, say); this one just answers.
const runner: ThreadRunner = {
  specificationVersion: "v1",
  supports: () => true,
  run: (thread) => thread.append({ role: "assistant", text: "Noted." }),
};

export async function main(url = "memory:"): Promise<string> {
  const registry = createRegistry().register(memoryState).register(ticketType);
  const store = await openStore(url, { registry }); // file:./.skein or redis://… work the same

  const ticket = (await store.create("acme.ticket", {
    subject: "Login broken",
    priority: "high",
  })) as TypedLocalThread<Ticket>;
  await ticket.append({ role: "user", text: "I use Firefox" });
  await withContextProviders(runner, [memory]).run(ticket);
  await ticket.update({ fields: { priority: "normal" } }); // validated against the schema
  const fork = (await ticket.fork()) as TypedLocalThread<Ticket>; // still an acme.ticket

  await ticket.refresh();
  const { memory: remembered } = contextOf(ticket, [memory]); // typed: { facts: string[] }
  // A version-1 ticket, from an older release, is migrated when read.
  const old = parseThreadState(
    { $type: "acme.ticket", $v: 1, id: "old-1", subject: "Printer", urgent: true },
    { registry },
  ) as unknown as Ticket;
  await store.close();
  return `${fork.type} ${ticket.fields.priority}; remembers "${remembered?.facts.join(", ")}"; old ticket: ${old.priority}`;
}

console.log(await main()); // acme.ticket normal; remembers "I use Firefox"; old ticket: high
