import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { Message } from "../message.js";
import type {
  CommitResult,
  LogChange,
  SegmentInfo,
  SegmentWriteOptions,
  StoredRecord,
} from "../spec/log-driver.js";

// Tests only (reply-store-steps, the encrypting driver's interim hints).
/** A memory driver that counts the store steps a streamed reply takes (each a round trip on a server store). */
export class StepCountingDriver extends MemoryLogDriver {
  steps = { read: 0, locate: 0, commit: 0, importSegment: 0, dropSegment: 0 };
  /** Each commit and segment write in order, with whether it was marked `interim`. */
  writes: string[] = [];
  /** How long each segment write takes, so that `end` can come while one is under way. */
  importDelayMs = 0;
  override async read(id: string): Promise<StoredRecord | undefined> {
    this.steps.read++;
    return super.read(id);
  }
  override async locate(segmentId: string, messageId: string, before: number) {
    this.steps.locate++;
    return super.locate(segmentId, messageId, before);
  }
  override async commit(id: string, change: LogChange): Promise<CommitResult> {
    this.steps.commit++;
    this.writes.push(change.interim ? "commit (interim)" : "commit");
    return super.commit(id, change);
  }
  override async importSegment(
    segment: SegmentInfo,
    messages: Message[],
    from: number,
    options?: SegmentWriteOptions,
  ) {
    this.steps.importSegment++;
    if (this.importDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.importDelayMs));
    this.writes.push(options?.interim ? "batch (interim)" : "batch");
    return super.importSegment(segment, messages, from);
  }
  override async dropSegment(id: string) {
    this.steps.dropSegment++;
    this.writes.push("drop");
    return super.dropSegment(id);
  }
  reset() {
    this.steps = { read: 0, locate: 0, commit: 0, importSegment: 0, dropSegment: 0 };
    this.writes = [];
  }
}
