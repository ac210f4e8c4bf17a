import fc from "fast-check";

/** A fixed timestamp: generated states differ in what matters, not in when they were made. */
const TIME = "2026-11-21T22:39:36.000Z";

const message = fc.record({
  id: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constant("m1")),
  role: fc.constantFrom("system", "user", "assistant", "tool"),
  createdAt: fc.constant(TIME),
  contents: fc.array(
    fc.oneof(
      fc.record({ type: fc.constant("text"), text: fc.string() }),
      fc.record({
        type: fc.constant("function_call"),
        callId: fc.constant("c1"),
        name: fc.constant("f"),
        arguments: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
      }),
      fc.record({ type: fc.constant("function_result"), callId: fc.constant("c1"), result: fc.jsonValue() }),
      fc.record({ type: fc.constant("data"), mediaType: fc.constant("image/png"), data: fc.base64String() }),
      fc.record({ type: fc.constant("x.custom"), payload: fc.jsonValue({ maxDepth: 2 }) }),
    ),
    { maxLength: 3 },
  ),
});

const memoryLog = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 40 }),
    first: fc.array(message, { maxLength: 5 }),
    second: fc.array(message, { maxLength: 3 }),
    forked: fc.boolean(),
    metadata: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
  })
  .map(({ id, first, second, forked, metadata }) => {
    const base = { id: "seg_a", base: null, start: 0, createdAt: TIME, messages: first };
    const head = {
      id: "seg_b",
      base: { segment: "seg_a", offset: first.length },
      start: first.length,
      createdAt: TIME,
      messages: second,
    };
    const checkpoint = {
      kind: "checkpoint",
      checkpoint: {
        id: "cp_1",
        label: "x",
        threadId: id,
        point: { segment: "seg_a", offset: first.length, position: first.length },
        createdAt: TIME,
      },
      at: TIME,
      revision: 1,
    };
    return {
      $type: "memory",
      $v: 1,
      id,
      createdAt: TIME,
      updatedAt: TIME,
      metadata,
      context: {},
      revision: 2,
      end: forked ? { segment: "seg_b", offset: second.length } : { segment: "seg_a", offset: first.length },
      segments: forked ? [base, head] : [base],
      events: forked ? [checkpoint] : [],
    };
  });

const reference = fc.record({
  $type: fc.constantFrom("fs", "redis"),
  $v: fc.constant(1),
  id: fc.string({ minLength: 1, maxLength: 40 }),
  createdAt: fc.constant(TIME),
  revision: fc.nat(),
});

const workflow = fc.tuple(memoryLog, memoryLog).map(([main, researcher]) => ({
  $type: "workflow",
  $v: 1,
  id: "wf",
  createdAt: TIME,
  metadata: {},
  context: {},
  revision: 1,
  execution: { steps: [], current: [], next: [] },
  checkpoints: [],
  events: [],
  threads: { main, researcher },
}));

const remote = fc.oneof(
  fc.record({
    $type: fc.constant("openai.conversation"),
    id: fc.string({ minLength: 1 }),
    conversationId: fc.constant("conv_1"),
    createdAt: fc.constant(TIME),
  }),
  fc.record({
    $type: fc.constant("a2a"),
    id: fc.constant("a"),
    agentUrl: fc.constant("http://169.254.169.254/latest"),
    contextId: fc.uuid(),
    createdAt: fc.constant(TIME),
  }),
  fc.record({
    $type: fc.constant("foundry.conversation"),
    id: fc.constant("f"),
    conversationId: fc.constant("conv_1"),
    agentName: fc.string(),
    createdAt: fc.constant(TIME),
  }),
);

/** Valid states of every kind, labelled, for mutation into hostile ones. */
export const validStates = fc.oneof(
  { weight: 5, arbitrary: memoryLog.map((value) => ({ kind: "memory", value })) },
  { weight: 2, arbitrary: reference.map((value) => ({ kind: "reference", value })) },
  { weight: 2, arbitrary: workflow.map((value) => ({ kind: "workflow", value })) },
  { weight: 1, arbitrary: remote.map((value) => ({ kind: "remote", value })) },
);
