import { type Thread, type ThreadRunner, UnsupportedOperationError } from "@skein/thread-core";
import { RunThread } from "./run-thread.js";

/**
 * Refuses a thread the service's runner cannot serve (`runner.supports(thread)`), when the thread is created
 * or branched rather than at its first message: no message is ever queued for it. With `created`, the
 * thread was made for this check and is deleted, so a refusal leaves nothing behind.
 */
export async function assertRunnerSupports(
  runner: ThreadRunner,
  thread: Thread,
  options: { created: boolean },
): Promise<void> {
  let supported: boolean;
  try {
    // Asked of a wrapper, as the runner will be handed the thread at every send (RunThread around the
    // lease fence, both exposing `inner`), so both find the same thread through thread-core's runTarget.
    supported = runner.supports(new RunThread(thread, [], "", () => {}));
  } catch (error) {
    if (options.created) await thread.delete().catch(() => {});
    throw error;
  }
  if (supported) return;
  if (options.created) await thread.delete().catch(() => {});
  throw new UnsupportedOperationError(
    thread.type,
    "this service's runner",
    "the runner cannot serve threads of this type, so nothing was created; use a type it supports, or a service with a runner for this type.",
    { source: "thread-service" },
  );
}
