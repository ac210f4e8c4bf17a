import { type ThreadState, ThreadStateSchema } from "@skein/thread-core";
import type { ThreadTypeDefinition } from "@skein/thread-core/driver";

/** The `$type` of classic Foundry agent threads. */
export const FOUNDRY_THREAD = "foundry.thread";

/** `foundry.thread`: a classic Foundry agent thread (`@azure/ai-agents`) and the agent that runs on it. */
export interface FoundryAgentThreadState extends ThreadState {
  $type: typeof FOUNDRY_THREAD;
  /** The service's thread id, `thread_…`. */
  threadId: string;
  /** The agent (`asst_…`) that `foundryRunner` runs on the thread. */
  agentId: string;
  /** The project the thread lives in, recorded so a state is never read through another project. */
  projectEndpoint?: string;
}

// Built from thread-core's schema so one zod instance validates every state (zod is not our dependency).
const nonEmpty = ThreadStateSchema.shape.id;

/** The zod schema of a `foundry.thread` state. */
export const FoundryAgentThreadStateSchema = ThreadStateSchema.extend({
  threadId: nonEmpty,
  agentId: nonEmpty,
  projectEndpoint: nonEmpty.optional(),
}) as unknown as ThreadTypeDefinition<FoundryAgentThreadState>["schema"];
