import type { WorkflowStep } from "@skein/thread-core";
import type { WorkflowInfo } from "../api-types.js";
import { MessageWindow } from "./message-window.js";
import type { ThreadRef } from "./thread-ref.js";

/** A workflow: its steps as a timeline, and its sub-threads side by side. */
export function WorkflowPanel({
  thread,
  workflow,
  version,
}: {
  thread: ThreadRef;
  workflow: WorkflowInfo;
  version?: string;
}) {
  const { execution } = workflow;
  const queued = new Map(execution.next.map((id, index) => [id, index]));
  const steps = [...execution.steps].sort(
    (a, b) => (queued.get(a.id) ?? -1) - (queued.get(b.id) ?? -1) || a.queuedAt.localeCompare(b.queuedAt),
  );
  return (
    <section class="workflow">
      <h3>Steps</h3>
      {steps.length === 0 ? <div class="muted">no steps yet</div> : null}
      <ol class="timeline">
        {steps.map((step) => (
          <li key={step.id} class={`step step-${step.status}`}>
            <span class="step-state">{stepState(step, queued)}</span>
            <b>{step.name}</b>
            {step.threadKey ? <span class="muted"> in {step.threadKey}</span> : null}
            <span class="muted"> {timing(step)}</span>
            {step.error ? <div class="error-part">{step.error}</div> : null}
          </li>
        ))}
      </ol>
      <h3>Sub-threads</h3>
      <div class="columns">
        {workflow.threads.map((sub) => (
          <div key={sub.key} class="column sub-thread" data-key={sub.key}>
            <h4>
              {sub.key} <span class="type">{sub.type}</span>
            </h4>
            {sub.readable ? (
              <>
                {sub.capabilities && !sub.capabilities.timeTravel ? (
                  <p class="muted">
                    A {sub.type} thread keeps no history here: its past, checkpoints and graph cannot be read.
                  </p>
                ) : null}
                <MessageWindow thread={{ ...thread, sub: sub.key }} version={version} compact />
              </>
            ) : (
              <p class="unreadable">Cannot read this sub-thread here: {sub.reason}</p>
            )}
          </div>
        ))}
      </div>
    </section>
  );
}

function stepState(step: WorkflowStep, queued: Map<string, number>): string {
  if (step.status === "completed") return "done";
  if (step.status === "failed") return "failed";
  if (step.status === "running") return "running";
  return queued.has(step.id) ? `next ${(queued.get(step.id) ?? 0) + 1}` : "pending";
}

function timing(step: WorkflowStep): string {
  const start = step.startedAt ?? step.queuedAt;
  return step.endedAt ? `${start.slice(11, 19)}–${step.endedAt.slice(11, 19)}` : start.slice(11, 19);
}
