import { ConcurrencyError } from "./errors.js";
import { cloneJson, type JsonValue } from "./json.js";
import { type Message, type MessageInput, normalizeMessage } from "./message.js";
import type { RunConfig, RunOptions, ThreadRunner } from "./runner.js";
import { assertSpecificationVersion } from "./specification-version.js";
import type { StateType, TypedState } from "./state-type.js";
import type { Thread, ViewOptions } from "./thread.js";
import { runTraced } from "./tracing/traced-runner.js";

/** What a provider adds to one run. Nothing of it is stored in the thread. */
export interface ProvidedContext {
  /** Appended to the run's system prompt. */
  instructions?: string;
  /**
   * Shown to the model just before the new input, in the thread's `view()` for this run only (and given to
   * the runner as `RunOptions.transient`); a runner that does not send the view refuses the run.
   */
  messages?: MessageInput[];
}

/** What `initialState` is told about a new thread. */
export interface ContextProviderStart {
  threadId: string;
  config: Readonly<RunConfig>;
}

/** What a context provider's `invoking` hook gets before a run: its state for this thread. */
export interface ContextProviderInvoking<State extends JsonValue = JsonValue> extends ContextProviderStart {
  /** `context[name]` of the thread, or the provider's initial state while the thread has none. */
  state: State | undefined;
  /** The new input of this run. */
  messages: readonly Message[];
}

/** What a context provider's `invoked` hook gets after a run: what `invoking` got, and the run's output. */
export interface ContextProviderInvoked<State extends JsonValue = JsonValue>
  extends ContextProviderInvoking<State> {
  /** What the runner appended. */
  output: readonly Message[];
}

/**
 * Adds context to a thread's runs and learns from them. Providers are stateless objects shared by every
 * thread: each thread's state lives in its `context[name]`, so the thread stays plain JSON.
 * @example { name: "memory", initialState: () => ({ facts: [] }), invoking: ({ state }) => ({ instructions: `Known: ${state?.facts}` }), invoked: ({ state, messages }) => remember(state, messages) }
 */
export interface ContextProvider<State extends JsonValue = JsonValue> {
  /** The key of its state in the thread's `context`; unique among the providers of one runner. */
  readonly name: string;
  /**
   * The registered type of its state (`defineStateType`): the state is stored with that `$type` and `$v`,
   * so every store validates it and migrates it when read, and `contextOf` types it. Register the type in
   * the store's registry too.
   */
  readonly stateType?: StateType;
  /**
   * The state it wants on a new thread (undefined: none). thread-service stores it when it creates a
   * thread; `withContextProviders` uses it for a thread that has no state yet and stores it after the run.
   */
  initialState?(input: ContextProviderStart): State | undefined | Promise<State | undefined>;
  /** Before the run: extra context for the model. */
  invoking?(
    input: ContextProviderInvoking<State>,
  ): ProvidedContext | undefined | Promise<ProvidedContext | undefined>;
  /**
   * After a run that completed: the next state (undefined keeps the current one). Called again with the
   * fresh state when another run stored its providers' states first, so derive the result from `state`.
   */
  invoked?(input: ContextProviderInvoked<State>): State | undefined | Promise<State | undefined>;
}

/** One run with providers: the runner, its thread and options, and the new input when the caller knows it. */
export interface ProvidedRun {
  runner: ThreadRunner;
  providers: readonly ContextProvider[];
  thread: Thread;
  options?: RunOptions;
  /** The new input of this run. @default the messages after the last one the model (or a tool) wrote */
  input?: readonly Message[];
}

/** How far back the default input is looked for: the last messages not written by the model. */
const INPUT_LOOKBACK = 64;

/**
 * Enough for any realistic contention on one thread's context (each attempt asks every `invoked` again);
 * past it the store is misbehaving or the thread is written too often for providers to keep up.
 */
const MAX_ATTEMPTS = 16;

/**
 * A runner that runs `runner` with context providers, whatever the thread and wherever it is called:
 * before the run each provider's `invoking` adds instructions (to the system prompt) and messages (to the
 * thread's `view()` for this run only); after it, each `invoked` returns the provider's next state, which is
 * stored in the thread's `context[name]` with an optimistic update. thread-service runs its providers
 * through the same code.
 * @example const runner = withContextProviders(openaiRunner({ client }), [memory]); await runner.run(thread, { config });
 */
export function withContextProviders(
  runner: ThreadRunner,
  providers: readonly ContextProvider[],
): ThreadRunner {
  assertSpecificationVersion("runner given to withContextProviders", runner.specificationVersion);
  const checked = checkContextProviders(providers);
  return {
    specificationVersion: "v1",
    supports: (thread) => runner.supports(thread),
    run: (thread, options) =>
      runWithContextProviders({ runner, providers: checked, thread, ...(options ? { options } : {}) }),
  };
}

/** Checks a list of providers: each a named object, each name once. */
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

/** The states the providers want on a new thread, by name; for the thread's `context` at creation. */
export async function initialProviderStates(
  providers: readonly ContextProvider[],
  start: ContextProviderStart,
): Promise<Record<string, JsonValue>> {
  const states: Record<string, JsonValue> = {};
  for (const provider of providers) {
    const state = await provider.initialState?.(start);
    if (state !== undefined) states[provider.name] = state;
  }
  return typedStates(providers, states);
}

/**
 * Runs `runner` on `thread` with the providers' context, then stores the providers' next states; resolves
 * with what the runner appended. A provider that throws fails the run (before it, nothing is asked of the
 * model; after it, the runner's messages stay and no state is stored).
 */
export async function runWithContextProviders(run: ProvidedRun): Promise<Message[]> {
  const { runner, providers, thread } = run;
  const options = run.options ?? {};
  if (providers.length === 0) return runTraced(runner, thread, options);
  const config: Readonly<RunConfig> = options.config ?? {};
  const input = run.input ?? (await newInput(thread));
  const start: ContextProviderStart = { threadId: thread.id, config };
  // States first set on this run (a thread without one): stored after the run unless `invoked` replaces them.
  const initial: Record<string, JsonValue> = {};
  const instructions: string[] = [];
  const provided: MessageInput[] = [];
  for (const provider of providers) {
    // A copy: the thread's context may be shared (frozen) and a provider may change its state in place.
    let state = cloneJson(thread.context[provider.name]) as JsonValue | undefined;
    if (state === undefined && provider.initialState) {
      state = await provider.initialState(start);
      if (state !== undefined) initial[provider.name] = state;
    }
    const context = await provider.invoking?.({ ...start, state, messages: input });
    if (context?.instructions) instructions.push(context.instructions);
    if (context?.messages) provided.push(...context.messages);
  }
  const transient = provided.map((message) => normalizeMessage(message));
  const view = transient.length === 0 ? thread : withTransientView(thread, transient, input[0]?.id);
  const systemPrompt = [config.systemPrompt, ...instructions].filter(Boolean).join("\n\n");
  const runConfig = instructions.length === 0 ? config : Object.freeze({ ...config, systemPrompt });
  const shown =
    transient.length === 0
      ? options
      : { ...options, transient: [...(options.transient ?? []), ...transient] };
  const output = await runTraced(runner, view, { ...shown, config: runConfig });
  if (!providers.some((provider) => provider.invoked) && Object.keys(initial).length === 0) return output;
  await storeNextStates(thread, providers, initial, { ...start, messages: input, output });
  return output;
}

/** The messages after the last one the model or a tool wrote: what the model has not answered yet. */
async function newInput(thread: Thread): Promise<Message[]> {
  const recent = await thread.messages({ last: INPUT_LOOKBACK });
  let start = recent.length;
  while (start > 0 && !isModelMessage(recent[start - 1] as Message)) start--;
  return recent.slice(start);
}

function isModelMessage(message: Message): boolean {
  return message.role === "assistant" || message.role === "tool";
}

/**
 * The thread with `transient` shown in its `view()` just before the message `beforeId` (at the end when the
 * view does not hold it); everything else is the thread's own, called on the thread itself.
 */
function withTransientView(
  thread: Thread,
  transient: readonly Message[],
  beforeId: string | undefined,
): Thread {
  const view = async (options?: ViewOptions): Promise<Message[]> => {
    const messages = await thread.view(options);
    const at = beforeId === undefined ? -1 : messages.findIndex((message) => message.id === beforeId);
    const index = at === -1 ? messages.length : at;
    return [...messages.slice(0, index), ...transient, ...messages.slice(index)];
  };
  return new Proxy(thread, {
    get(target, key) {
      if (key === "view") return view;
      const value = Reflect.get(target, key, target);
      // Bound to the thread itself: its methods may use private fields a proxy does not have.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Asks each provider's `invoked` for its next state from the thread's current context and stores them all
 * with one optimistic update. When another run stored first, the thread is read again and `invoked` asked
 * again with the fresh state, so two overlapping runs each build on the other's update instead of the later
 * one overwriting it; `invoked` should therefore derive its result from what it is given.
 */
async function storeNextStates(
  thread: Thread,
  providers: readonly ContextProvider[],
  initial: Record<string, JsonValue>,
  run: Omit<ContextProviderInvoked, "state">,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await thread.refresh();
    const states: Record<string, JsonValue> = {};
    for (const provider of providers) {
      const state =
        (cloneJson(thread.context[provider.name]) as JsonValue | undefined) ??
        cloneJson(initial[provider.name]);
      const next = await provider.invoked?.({ ...run, state });
      if (next !== undefined) states[provider.name] = next;
      else if (initial[provider.name] !== undefined && thread.context[provider.name] === undefined) {
        states[provider.name] = initial[provider.name] as JsonValue;
      }
    }
    if (Object.keys(states).length === 0) return;
    const ifRevision = thread.capabilities.revisions ? thread.revision : undefined;
    try {
      await thread.update(
        { context: { ...thread.context, ...typedStates(providers, states) } },
        ifRevision === undefined ? {} : { ifRevision },
      );
      return;
    } catch (error) {
      if (!ConcurrencyError.isInstance(error) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/** Each state of a provider that declares its type, with that type's `$type` and `$v`. */
function typedStates(
  providers: readonly ContextProvider[],
  states: Record<string, JsonValue>,
): Record<string, JsonValue> {
  const typed: Record<string, JsonValue> = { ...states };
  for (const provider of providers) {
    const state = states[provider.name];
    if (provider.stateType && state !== null && typeof state === "object" && !Array.isArray(state)) {
      typed[provider.name] = provider.stateType.of(state) as JsonValue;
    }
  }
  return typed;
}

/** The state a provider keeps: its state type's, or what its callbacks return. */
export type ProviderState<Provider> = Provider extends { stateType: StateType<infer Fields> }
  ? TypedState<Fields>
  : Provider extends ContextProvider<infer State>
    ? State
    : never;

/** A thread's `context` as its providers keep it: each provider's state under its name. */
export type ProvidersContext<Providers extends readonly { name: string }[]> = {
  readonly [Provider in Providers[number] as Provider["name"]]?: ProviderState<Provider>;
};

type JsonFields = { [key: string]: JsonValue };

/**
 * Declares a context provider whose state has a registered type: its callbacks see that type's fields,
 * and `contextOf(thread, [provider]).memory` is typed.
 * @example const memory = defineContextProvider({ name: "memory", stateType: memoryState, initialState: () => ({ facts: [] }) });
 */
export function defineContextProvider<const Name extends string, Fields extends JsonFields>(
  provider: { name: Name; stateType: StateType<Fields> } & Omit<
    ContextProvider<Fields>,
    "name" | "stateType"
  >,
): ContextProvider<Fields> & { name: Name; stateType: StateType<Fields> } {
  return provider;
}

/**
 * The thread's context typed by its providers' states.
 * @example const { memory } = contextOf(thread, [memoryProvider]); memory?.facts
 */
export function contextOf<const Providers extends readonly { name: string }[]>(
  thread: Pick<Thread, "context">,
  _providers: Providers,
): ProvidersContext<Providers> {
  return thread.context as ProvidersContext<Providers>;
}
