/** What an emulated agent sees of a thread when it takes its turn. */
export interface AgentTurn {
  /** The text of the newest user message. */
  lastUserText: string;
  /** Outputs of the tool calls it made this turn, once submitted. */
  toolOutputs: Array<{ callId: string; output: string }>;
}

/** What an emulated agent does with a turn: answer, call tools, or end the run some other way. */
export type AgentStep =
  | { kind: "reply"; text: string }
  | { kind: "tools"; calls: Array<{ name: string; arguments: Record<string, unknown> }> }
  | { kind: "fail"; code: string; message: string }
  | { kind: "expire" }
  | { kind: "cancel" }
  | { kind: "wait" }
  | { kind: "incomplete"; reason: string; text: string };

export type AgentScript = (turn: AgentTurn) => AgentStep;

/** The emulator's agents, by name; classic agents are the same scripts under `asst_<name>` ids. */
export const AGENT_SCRIPTS: Readonly<Record<string, AgentScript>> = {
  echo: (turn) => ({ kind: "reply", text: `echo: ${turn.lastUserText}` }),
  weather: (turn) =>
    turn.toolOutputs.length === 0
      ? {
          kind: "tools",
          calls: [
            { name: "weather", arguments: { city: "Paris" } },
            { name: "weather", arguments: { city: "Oslo" } },
          ],
        }
      : { kind: "reply", text: `forecast: ${turn.toolOutputs.map((output) => output.output).join(" | ")}` },
  broken: () => ({ kind: "fail", code: "server_error", message: "The model deployment crashed." }),
  stale: () => ({ kind: "expire" }),
  revoked: () => ({ kind: "cancel" }),
  sleepy: () => ({ kind: "wait" }),
  terse: () => ({ kind: "incomplete", reason: "max_output_tokens", text: "It is" }),
  /** Fails, quoting what it was told in its reason: a service that echoes its input into an error. */
  quoting: (turn) => ({
    kind: "fail",
    code: "server_error",
    message: `could not handle: ${turn.lastUserText}`,
  }),
};

/** The classic agent id for a script name, and back. */
export const classicAgentId = (name: string) => `asst_${name}`;
export const scriptOfAgentId = (agentId: string) => AGENT_SCRIPTS[agentId.replace(/^asst_/, "")];
