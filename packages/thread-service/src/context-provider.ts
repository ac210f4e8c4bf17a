import type { JsonValue, Message, MessageInput } from "@skein/thread-core";
import type { ThreadConfig } from "./thread-config.js";

/** What a provider adds to one run. Nothing of it is stored in the thread. */
export interface ProvidedContext {
  /** Appended to the run's system prompt. */
  instructions?: string;
  /** Shown to the model just before the new input, in the thread's `view()` for this run only. */
  messages?: MessageInput[];
}

export interface ContextProviderInvoking<State extends JsonValue = JsonValue> {
  threadId: string;
  /** `context[name]` of the thread; undefined until the provider first returns a state. */
  state: State | undefined;
  /** The new input of this run. */
  messages: readonly Message[];
  config: Readonly<ThreadConfig>;
}

export interface ContextProviderInvoked<State extends JsonValue = JsonValue>
  extends ContextProviderInvoking<State> {
  /** What the runner appended. */
  output: readonly Message[];
}

/**
 * Adds context to a thread's runs and learns from them. Providers are stateless objects shared by every
 * thread: each thread's state lives in its `context[name]`, so the thread stays plain JSON.
 * @example { name: "memory", invoking: ({ state }) => ({ instructions: `Known: ${state?.facts}` }), invoked: ({ state, messages }) => remember(state, messages) }
 */
export interface ContextProvider<State extends JsonValue = JsonValue> {
  /** The key of its state in the thread's `context`; unique among a service's providers. */
  readonly name: string;
  /** Before the run: extra context for the model. */
  invoking?(
    input: ContextProviderInvoking<State>,
  ): ProvidedContext | undefined | Promise<ProvidedContext | undefined>;
  /** After a run that completed: the next state (undefined keeps the current one). */
  invoked?(input: ContextProviderInvoked<State>): State | undefined | Promise<State | undefined>;
}

/** Checks the providers a service is given: each a named object, each name once. */
export function checkContextProviders(providers: readonly ContextProvider[]): readonly ContextProvider[] {
  const names = new Set<string>();
  for (const provider of providers) {
    if (typeof provider?.name !== "string" || provider.name.length === 0) {
      throw new TypeError("every context provider needs a non-empty name");
    }
    if (names.has(provider.name)) throw new TypeError(`two context providers are named "${provider.name}"`);
    names.add(provider.name);
  }
  return Object.freeze([...providers]);
}

/** Asks every provider for its context, in order. */
export async function invokeProviders(
  providers: readonly ContextProvider[],
  input: Omit<ContextProviderInvoking, "state">,
  context: Readonly<Record<string, unknown>>,
): Promise<{ instructions: string[]; messages: MessageInput[] }> {
  const instructions: string[] = [];
  const messages: MessageInput[] = [];
  for (const provider of providers) {
    const provided = await provider.invoking?.({ ...input, state: context[provider.name] as JsonValue });
    if (provided?.instructions) instructions.push(provided.instructions);
    if (provided?.messages) messages.push(...provided.messages);
  }
  return { instructions, messages };
}

/** Each provider's next state, for those that returned one; the caller stores them in the thread's context. */
export async function collectProviderStates(
  providers: readonly ContextProvider[],
  input: Omit<ContextProviderInvoked, "state">,
  context: Readonly<Record<string, unknown>>,
): Promise<Record<string, JsonValue>> {
  const states: Record<string, JsonValue> = {};
  for (const provider of providers) {
    const next = await provider.invoked?.({ ...input, state: context[provider.name] as JsonValue });
    if (next !== undefined) states[provider.name] = next;
  }
  return states;
}
