import { type AgentStep, scriptOfAgentId } from "./agent-scripts.js";
import { blocksOf, runRecord, textBlock } from "./classic-records.js";
import { type EmulatorRequest, listPage, type Route, ServiceFailure } from "./emulator-http.js";
import type { IdSource } from "./id-source.js";

type Json = Record<string, unknown>;

interface ThreadRecord {
  id: string;
  object: "thread";
  created_at: number;
  metadata: Json;
  tool_resources: null;
}

interface MessageRecord extends Json {
  id: string;
  role: string;
  run_id: string | null;
  content: Json[];
}

interface RunRecord extends Json {
  id: string;
  status: string;
  assistant_id: string;
}

/** What a run remembers that the service does not show: the calls it asked for and the outputs it got. */
interface RunMemory {
  callIds: string[];
  outputs: Array<{ callId: string; output: string }>;
}

const ACTIVE = new Set(["queued", "in_progress", "requires_action", "cancelling"]);

/**
 * Classic Foundry agents (`@azure/ai-agents`): threads, messages and runs, with the run state machine
 * queued → in_progress → requires_action → completed / failed / cancelled / expired. A run moves one
 * step each time it is read, so a poller sees every state.
 */
export class AgentsService {
  readonly threads = new Map<
    string,
    { thread: ThreadRecord; messages: MessageRecord[]; runs: RunRecord[] }
  >();
  readonly #memory = new Map<string, RunMemory>();

  constructor(private readonly ids: IdSource) {}

  routes(): Route[] {
    const route = (
      method: string,
      pattern: RegExp,
      handler: (request: EmulatorRequest, params: string[]) => unknown,
    ): Route => ({
      method,
      pattern,
      handler,
    });
    return [
      route("POST", /^\/threads$/, () => this.#createThread()),
      route("GET", /^\/threads\/([^/]+)$/, (_, [threadId]) => this.#entry(threadId).thread),
      route("DELETE", /^\/threads\/([^/]+)$/, (_, [threadId]) => this.#deleteThread(threadId as string)),
      route("POST", /^\/threads\/([^/]+)\/messages$/, (request, [threadId]) =>
        this.#createMessage(threadId as string, request.body),
      ),
      route("GET", /^\/threads\/([^/]+)\/messages$/, (request, [threadId]) =>
        this.#listMessages(threadId as string, request.query),
      ),
      route("GET", /^\/threads\/([^/]+)\/messages\/([^/]+)$/, (_, [threadId, messageId]) =>
        this.#message(threadId, messageId),
      ),
      route("POST", /^\/threads\/([^/]+)\/runs$/, (request, [threadId]) =>
        this.#createRun(threadId as string, request.body),
      ),
      route("GET", /^\/threads\/([^/]+)\/runs$/, (request, [threadId]) =>
        listPage(this.#entry(threadId).runs, request.query),
      ),
      route("GET", /^\/threads\/([^/]+)\/runs\/([^/]+)$/, (_, [threadId, runId]) =>
        this.#advance(this.#run(threadId, runId)),
      ),
      route(
        "POST",
        /^\/threads\/([^/]+)\/runs\/([^/]+)\/submit_tool_outputs$/,
        (request, [threadId, runId]) => this.#submit(this.#run(threadId, runId), request.body),
      ),
      route("POST", /^\/threads\/([^/]+)\/runs\/([^/]+)\/cancel$/, (_, [threadId, runId]) =>
        this.#cancel(this.#run(threadId, runId)),
      ),
    ];
  }

  #createThread(): ThreadRecord {
    const thread: ThreadRecord = {
      id: this.ids.next("thread"),
      object: "thread",
      created_at: this.ids.now(),
      metadata: {},
      tool_resources: null,
    };
    this.threads.set(thread.id, { thread, messages: [], runs: [] });
    return thread;
  }

  #deleteThread(threadId: string): Json {
    this.#entry(threadId);
    this.threads.delete(threadId);
    return { id: threadId, object: "thread.deleted", deleted: true };
  }

  #entry(threadId: string | undefined) {
    const entry = this.threads.get(threadId ?? "");
    if (!entry)
      throw new ServiceFailure(404, `No thread found with id '${threadId}'.`, { code: "not_found" });
    return entry;
  }

  #createMessage(threadId: string, body: Json): MessageRecord {
    const entry = this.#entry(threadId);
    const active = entry.runs.find((run) => ACTIVE.has(run.status));
    if (active)
      throw new ServiceFailure(400, `Can't add messages to ${threadId} while a run ${active.id} is active.`);
    if (body.role !== "user" && body.role !== "assistant")
      throw new ServiceFailure(400, "role must be user or assistant.", { param: "role" });
    return this.#addMessage(threadId, String(body.role), blocksOf(body.content), null, null);
  }

  #addMessage(
    threadId: string,
    role: string,
    content: Json[],
    runId: string | null,
    assistantId: string | null,
  ): MessageRecord {
    const now = this.ids.now();
    const message: MessageRecord = {
      id: this.ids.next("msg"),
      object: "thread.message",
      created_at: now,
      thread_id: threadId,
      status: "completed",
      incomplete_details: null,
      completed_at: now,
      incomplete_at: null,
      role,
      content,
      assistant_id: assistantId,
      run_id: runId,
      attachments: [],
      metadata: {},
    };
    this.#entry(threadId).messages.push(message);
    return message;
  }

  #listMessages(threadId: string, query: URLSearchParams) {
    const runId = query.get("run_id");
    const messages = this.#entry(threadId).messages.filter(
      (message) => runId === null || message.run_id === runId,
    );
    return listPage(messages, query);
  }

  #message(threadId: string | undefined, messageId: string | undefined): MessageRecord {
    const message = this.#entry(threadId).messages.find((candidate) => candidate.id === messageId);
    if (!message)
      throw new ServiceFailure(404, `No message found with id '${messageId}'.`, { code: "not_found" });
    return message;
  }

  #createRun(threadId: string, body: Json): RunRecord {
    const entry = this.#entry(threadId);
    const agentId = String(body.assistant_id ?? "");
    if (!scriptOfAgentId(agentId))
      throw new ServiceFailure(404, `No assistant found with id '${agentId}'.`, { code: "not_found" });
    if (entry.runs.some((run) => ACTIVE.has(run.status)))
      throw new ServiceFailure(400, `Thread ${threadId} already has an active run.`);
    const run = runRecord(this.ids.next("run"), threadId, agentId, this.ids.now(), body);
    entry.runs.push(run);
    this.#memory.set(run.id, { callIds: [], outputs: [] });
    return run;
  }

  #run(threadId: string | undefined, runId: string | undefined): RunRecord {
    const run = this.#entry(threadId).runs.find((candidate) => candidate.id === runId);
    if (!run) throw new ServiceFailure(404, `No run found with id '${runId}'.`, { code: "not_found" });
    return run;
  }

  #advance(run: RunRecord): RunRecord {
    const now = this.ids.now();
    if (run.status === "queued")
      Object.assign(run, { status: "in_progress", started_at: run.started_at ?? now });
    else if (run.status === "cancelling") Object.assign(run, { status: "cancelled", cancelled_at: now });
    else if (run.status === "in_progress") this.#takeStep(run, now);
    return run;
  }

  #takeStep(run: RunRecord, now: number): void {
    const memory = this.#memory.get(run.id) as RunMemory;
    const messages = this.#entry(String(run.thread_id)).messages;
    const lastUser = [...messages].reverse().find((message) => message.role === "user");
    const lastUserText = String((lastUser?.content[0]?.text as Json | undefined)?.value ?? "");
    const step: AgentStep = (scriptOfAgentId(run.assistant_id) ?? (() => ({ kind: "expire" })))({
      lastUserText,
      toolOutputs: memory.outputs,
    });
    if (step.kind === "reply" || step.kind === "incomplete") {
      this.#addMessage(String(run.thread_id), "assistant", [textBlock(step.text)], run.id, run.assistant_id);
      Object.assign(run, {
        status: "completed",
        completed_at: now,
        usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      });
    } else if (step.kind === "tools") {
      const calls = step.calls.map((call) => ({
        id: this.ids.next("call"),
        type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      }));
      memory.callIds = calls.map((call) => call.id);
      Object.assign(run, {
        status: "requires_action",
        required_action: { type: "submit_tool_outputs", submit_tool_outputs: { tool_calls: calls } },
      });
    } else if (step.kind === "fail") {
      Object.assign(run, {
        status: "failed",
        failed_at: now,
        last_error: { code: step.code, message: step.message },
      });
    } else if (step.kind === "cancel") {
      run.status = "cancelling";
    } else if (step.kind !== "wait") {
      Object.assign(run, { status: "expired" });
    }
  }

  #submit(run: RunRecord, body: Json): RunRecord {
    if (run.status !== "requires_action")
      throw new ServiceFailure(400, `Run ${run.id} is ${run.status}, not requires_action.`);
    const memory = this.#memory.get(run.id) as RunMemory;
    const outputs = ((body.tool_outputs as Json[] | undefined) ?? []).map((output) => ({
      callId: String(output.tool_call_id),
      output: String(output.output),
    }));
    const given = new Set(outputs.map((output) => output.callId));
    if (
      memory.callIds.some((callId) => !given.has(callId)) ||
      outputs.some((output) => !memory.callIds.includes(output.callId))
    ) {
      throw new ServiceFailure(400, "Expected tool outputs for every tool call of the run.", {
        param: "tool_outputs",
      });
    }
    memory.outputs = outputs;
    return Object.assign(run, { status: "queued", required_action: null });
  }

  #cancel(run: RunRecord): RunRecord {
    if (!ACTIVE.has(run.status))
      throw new ServiceFailure(400, `Cannot cancel run with status '${run.status}'.`);
    return Object.assign(run, { status: "cancelling", required_action: null });
  }
}
