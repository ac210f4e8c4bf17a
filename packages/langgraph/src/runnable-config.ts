import type { RunnableConfig } from "@langchain/core/runnables";
import { CheckpointConfigError } from "./errors.js";

/** The config's `thread_id` as a string; `required` makes its absence a `CheckpointConfigError`. */
export function threadIdOf(config: RunnableConfig, required: boolean): string | undefined {
  const value: unknown = config.configurable?.thread_id;
  if (value === undefined || value === null) {
    if (!required) return undefined;
    throw new CheckpointConfigError(
      "thread_id",
      'is missing: a checkpointer needs one, as in graph.invoke(input, { configurable: { thread_id: "t-1" } })',
    );
  }
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string" || value === "") {
    throw new CheckpointConfigError(
      "thread_id",
      `must be a non-empty string, not ${typeof value === "string" ? "empty" : typeof value}`,
    );
  }
  return value;
}

/** The config's `checkpoint_ns`, `""` when absent. */
export function namespaceOf(config: RunnableConfig): string {
  const value: unknown = config.configurable?.checkpoint_ns ?? "";
  if (typeof value !== "string")
    throw new CheckpointConfigError("checkpoint_ns", `must be a string, not ${typeof value}`);
  return value;
}

/** The config's `checkpoint_id`, undefined when absent or empty. */
export function checkpointIdOf(config: RunnableConfig): string | undefined {
  const value: unknown = config.configurable?.checkpoint_id;
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string")
    throw new CheckpointConfigError("checkpoint_id", `must be a string, not ${typeof value}`);
  return value;
}
