/** The shared workload: messages of about 230 bytes of JSON, as the scenarios specify. */

export interface WorkloadMessage {
  role: "user" | "assistant";
  text: string;
}

const FILLER = "The quick brown fox jumps over the lazy dog while the model thinks about tools. ";

/** `count` messages whose skein JSON is about 230 bytes each. */
export function workloadMessages(count: number): WorkloadMessage[] {
  return Array.from({ length: count }, (_, index) => ({
    role: index % 2 ? "assistant" : "user",
    text: `#${index} ${FILLER}${FILLER.slice(0, 40)}`,
  }));
}

/** A message as an application storing raw JSON would store it: the same fields skein keeps. */
export function rawRecord(message: WorkloadMessage, index: number) {
  return {
    id: `m-${String(index).padStart(6, "0")}`,
    role: message.role,
    createdAt: new Date().toISOString(),
    contents: [{ type: "text", text: message.text }],
  };
}
