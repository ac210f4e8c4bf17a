import { setTimeout as sleep } from "node:timers/promises";
import type { AgentsClient, RunsCreateRunOptionalParams, ThreadRun, ToolOutput } from "@azure/ai-agents";
import { ConflictError, type Content, type Message } from "@skein/thread-core";
import { parseMessage } from "@skein/thread-core/driver";
import type { FoundrySettings } from "../adapter-lookup.js";
import { FoundryRunError, type RunEnding, SOURCE } from "../errors.js";
import { callService } from "../service-call.js";
import { firstPage } from "./first-page.js";

/** Where a run happens: the classic thread, the skein thread it serves, and the caller's limits. */
export interface RunContext {
  client: AgentsClient;
  /** The service's thread id. */
  threadId: string;
  /** The skein thread id, named in errors. */
  skeinThreadId: string;
  settings: FoundrySettings;
  signal?: AbortSignal | undefined;
  /** Asks the client's credential for a token before each request (`FoundryAdapter.checkAgentsCredential`). */
  checkCredential: (signal: AbortSignal) => Promise<void>;
}

/** Run states that move on by themselves: poll again. `requires_action` waits for the caller instead. */
const MOVING: ReadonlySet<string> = new Set(["queued", "in_progress", "cancelling"]);
const ENDINGS: ReadonlySet<string> = new Set(["failed", "cancelled", "expired"]);

export type RunCreateSettings = Omit<
  RunsCreateRunOptionalParams,
  "abortSignal" | "onResponse" | "requestOptions"
>;

function call<T>(
  context: RunContext,
  operation: string,
  run: (signal: AbortSignal) => PromiseLike<T>,
): Promise<T> {
  return callService(
    { operation, threadId: context.skeinThreadId },
    {
      requestTimeoutMs: context.settings.requestTimeoutMs,
      signal: context.signal,
      checkCredential: context.checkCredential,
    },
    async (signal) => run(signal),
  );
}

/** The thread's newest run, if any (one page of one: the list call's own paging is not needed). */
export async function latestRun(context: RunContext): Promise<ThreadRun | undefined> {
  const { items } = await call(context, "runs.list", (abortSignal) =>
    firstPage((onResponse) =>
      context.client.runs.list(context.threadId, { limit: 1, order: "desc", abortSignal, onResponse }),
    ),
  );
  return items[0];
}

/** A run that is not over yet (moving or waiting for tool outputs), to resume instead of starting another. */
export function isUnfinished(run: ThreadRun | undefined): run is ThreadRun {
  return run !== undefined && (MOVING.has(run.status) || run.status === "requires_action");
}

/**
 * Starts a run. The request is not given the caller's signal: an abort while it is on its way would leave a
 * run the service made but the caller never learnt of, never cancelled. It is bounded by the request
 * timeout; a caller that gave up meanwhile has the run cancelled, then gets its abort reason.
 */
export async function createRun(
  context: RunContext,
  agentId: string,
  settings: RunCreateSettings,
): Promise<ThreadRun> {
  const run = await call({ ...context, signal: undefined }, "runs.create", (abortSignal) =>
    context.client.runs.create(context.threadId, agentId, { ...settings, abortSignal }),
  );
  if (context.signal?.aborted) {
    await cancelQuietly(context, run.id);
    throw context.signal.reason;
  }
  return run;
}

/**
 * Polls until the run stops moving: completed, requires_action (returned, never polled forever), or an
 * ending, which throws `FoundryRunError`. An abort or `runTimeoutMs` cancels the run on the service first.
 */
export async function waitForRun(context: RunContext, run: ThreadRun): Promise<ThreadRun> {
  const started = Date.now();
  let current = run;
  try {
    while (MOVING.has(current.status)) {
      if (Date.now() - started > context.settings.runTimeoutMs) {
        await cancelQuietly(context, current.id);
        throw new FoundryRunError(
          context.skeinThreadId,
          current.id,
          "timed_out",
          undefined,
          `still ${current.status} after ${context.settings.runTimeoutMs} ms; it was cancelled`,
        );
      }
      await sleep(context.settings.pollIntervalMs, undefined, { signal: context.signal });
      const runId = current.id;
      current = await call(context, "runs.get", (abortSignal) =>
        context.client.runs.get(context.threadId, runId, { abortSignal }),
      );
    }
  } catch (error) {
    if (!context.signal?.aborted) throw error;
    await cancelQuietly(context, current.id);
    throw context.signal.reason;
  }
  if (ENDINGS.has(current.status)) {
    const reason = current.lastError;
    throw new FoundryRunError(
      context.skeinThreadId,
      current.id,
      current.status as RunEnding,
      reason?.code ?? undefined,
      reason?.message ?? `the run was ${current.status}`,
    );
  }
  return current;
}

/** Cancels a run the caller gave up on; a failure to cancel must not hide why the caller gave up. */
async function cancelQuietly(context: RunContext, runId: string): Promise<void> {
  const detached = { ...context, signal: undefined };
  await call(detached, "runs.cancel", (abortSignal) =>
    context.client.runs.cancel(context.threadId, runId, { abortSignal }),
  ).catch(() => undefined);
}

interface RequiredCall {
  type: string;
  id: string;
  function?: { name: string; arguments: string };
}

function requiredCalls(run: ThreadRun): RequiredCall[] {
  const action = run.requiredAction as
    | { submitToolOutputs?: { toolCalls?: RequiredCall[] } }
    | null
    | undefined;
  return action?.submitToolOutputs?.toolCalls ?? [];
}

/**
 * The calls a run in `requires_action` waits for, as one assistant message of `function_call` contents.
 * Its id is derived from the run and its first call, so asking twice gives the same message.
 */
export function toolCallMessage(run: ThreadRun): Message {
  const calls = requiredCalls(run);
  const contents: Content[] = calls.map((required) =>
    required.type === "function" && required.function
      ? {
          type: "function_call",
          callId: required.id,
          name: required.function.name,
          arguments: parseArguments(required.function.arguments),
        }
      : ({ type: "foundry.tool_call", callId: required.id, toolCall: required } as Content),
  );
  return parseMessage({
    id: `${run.id}/${calls[0]?.id ?? "calls"}`,
    role: "assistant",
    createdAt: (run.startedAt ?? run.createdAt).toISOString(),
    contents,
    metadata: { runId: run.id },
  });
}

/**
 * Submits `function_result` contents to the run waiting for them. Every call the run waits for needs its
 * result in the same submission (the service takes them all at once); anything else is a `ConflictError`
 * and nothing is sent.
 */
export async function submitToolOutputs(context: RunContext, results: Content[]): Promise<ThreadRun> {
  const run = await latestRun(context);
  const where = `thread ${JSON.stringify(context.skeinThreadId)}`;
  if (run?.status !== "requires_action") {
    throw new ConflictError(
      `No run on ${where} is waiting for tool outputs${run ? ` (its latest run is ${run.status})` : ""}.`,
      undefined,
      {
        source: SOURCE,
      },
    );
  }
  const waiting = requiredCalls(run).map((required) => required.id);
  const given = new Set(results.map((result) => String(result.callId)));
  const unknown = [...given].filter((callId) => !waiting.includes(callId));
  const missing = waiting.filter((callId) => !given.has(callId));
  if (unknown.length > 0 || missing.length > 0) {
    throw new ConflictError(
      `Run ${run.id} on ${where} waits for the results of ${waiting.join(", ")}; ` +
        `${missing.length ? `missing ${missing.join(", ")}` : ""}${missing.length && unknown.length ? "; " : ""}${unknown.length ? `not asked for ${unknown.join(", ")}` : ""}. Append them all in one call.`,
      undefined,
      { source: SOURCE },
    );
  }
  const outputs: ToolOutput[] = results.map((result) => ({
    toolCallId: String(result.callId),
    output: outputText(result),
  }));
  return call(context, "runs.submitToolOutputs", async (abortSignal) =>
    context.client.runs.submitToolOutputs(context.threadId, run.id, outputs, { abortSignal }),
  );
}

function outputText(result: Content): string {
  const value = result.isError === true ? { error: result.result } : result.result;
  return typeof value === "string" ? value : JSON.stringify(value);
}

function parseArguments(text: string): Record<string, unknown> | string {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : text;
  } catch {
    return text;
  }
}
