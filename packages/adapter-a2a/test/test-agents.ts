import { type Message, Role, type Task, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";

/** The executors the tests talk to, each a small real agent built on the SDK's server side. */
export type AgentName = "echo" | "ask" | "plain" | "fail" | "unstreamed";

function textPart(value: string) {
  return {
    content: { $case: "text" as const, value },
    mediaType: "text/plain",
    filename: "",
    metadata: undefined,
  };
}

function agentSays(context: RequestContext, value: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: context.contextId,
    taskId: context.taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(value)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function textOf(message: Message): string {
  return message.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

/** The task as it stands: the one the request continues, or a new one holding the user's message. */
function publishTask(context: RequestContext, bus: ExecutionEventBus): void {
  const task: Task = context.task ?? {
    id: context.taskId,
    contextId: context.contextId,
    status: {
      state: TaskState.TASK_STATE_SUBMITTED,
      message: undefined,
      timestamp: new Date().toISOString(),
    },
    artifacts: [],
    history: [context.userMessage],
    metadata: undefined,
  };
  bus.publish(AgentEvent.task(task));
}

function status(context: RequestContext, bus: ExecutionEventBus, state: TaskState, message?: Message): void {
  bus.publish(
    AgentEvent.statusUpdate({
      taskId: context.taskId,
      contextId: context.contextId,
      status: { state, message, timestamp: new Date().toISOString() },
      metadata: undefined,
    }),
  );
}

/** Works a moment, emits an `echo` artifact, and completes with "echo: <text>". */
const echo: AgentExecutor = {
  async execute(context, bus) {
    const said = textOf(context.userMessage);
    publishTask(context, bus);
    status(context, bus, TaskState.TASK_STATE_WORKING);
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId: context.taskId,
        contextId: context.contextId,
        artifact: {
          artifactId: "echo",
          name: "echo",
          description: "",
          parts: [textPart(said.toUpperCase())],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    status(context, bus, TaskState.TASK_STATE_COMPLETED, agentSays(context, `echo: ${said}`));
    bus.finished();
  },
  async cancelTask() {},
};

/** Asks for a name (input-required), then greets it and completes, in the same task. */
const ask: AgentExecutor = {
  async execute(context, bus) {
    publishTask(context, bus);
    if (!context.task) {
      status(context, bus, TaskState.TASK_STATE_INPUT_REQUIRED, agentSays(context, "What is your name?"));
    } else {
      status(
        context,
        bus,
        TaskState.TASK_STATE_COMPLETED,
        agentSays(context, `Hello, ${textOf(context.userMessage)}!`),
      );
    }
    bus.finished();
  },
  async cancelTask() {},
};

/** Answers with a plain message, no task: A2A keeps no record of it. */
const plain: AgentExecutor = {
  async execute(context, bus) {
    bus.publish(AgentEvent.message(agentSays(context, `plain: ${textOf(context.userMessage)}`)));
    bus.finished();
  },
  async cancelTask() {},
};

/** Throws: the SDK turns it into a failed task. */
const fail: AgentExecutor = {
  async execute() {
    throw new Error("the agent broke");
  },
  async cancelTask() {},
};

/** `unstreamed` is `echo` behind a card without streaming: clients fall back to a blocking send. */
export const TEST_AGENTS: Record<AgentName, AgentExecutor> = { echo, ask, plain, fail, unstreamed: echo };
