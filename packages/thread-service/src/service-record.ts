import { randomUUID } from "node:crypto";
import type { Thread } from "@skein/thread-core";
import { NotAServiceThreadError, ThreadKilledError, ThreadLockedError, ThreadPausedError } from "./errors.js";
import { deepFreeze, type ThreadConfig } from "./thread-config.js";

/** The reserved metadata key under which a service thread keeps its record. */
export const SERVICE_RECORD_KEY = "@skein/thread-service";

/** A file given to a thread; the id is the file's id at the model provider (or wherever the runner reads it). */
export interface Attachment {
  fileId: string;
  name?: string;
  mediaType?: string;
  attachedAt: string;
}

/** Why a message's processing failed, as the service keeps it with the thread. */
export interface FailureSummary {
  messageId: string;
  /** The error's class name (`ThreadTimeoutError`, …). */
  error: string;
  message: string;
  at: string;
}

/**
 * What the service keeps with each thread, in `metadata["@skein/thread-service"]`: plain JSON, so the
 * thread stays state only and any process reading it sees the same configuration and lifecycle.
 */
export interface ServiceRecord {
  v: 1;
  /**
   * Fixed at creation; no API changes it. A copy, so the thread exports with it: the service reads the
   * configuration from its own create-once document (see `ConfigDocuments`), which metadata updates cannot reach.
   */
  config: ThreadConfig;
  /** `running`, `idle` and `failed` are not stored: they follow from the lease and `lastFailure`. */
  lifecycle: "active" | "paused" | "killed";
  /** Branches made from this thread, oldest first; a thread with any is locked. */
  branches: string[];
  /** The thread this one was branched from. */
  branchedFrom?: string;
  /** The root of the branch chain: the first ancestor that is not a branch (absent on a root thread). */
  originatingThreadId?: string;
  attachments: Attachment[];
  /** The last message's failure; cleared by the next message that completes. */
  lastFailure?: FailureSummary;
  createdAt: string;
  /**
   * Random, fixed at creation: tells this thread from an earlier one deleted under the same id, which
   * `createdAt` cannot when both were made in the same millisecond. Absent on records written before it
   * existed; those are told apart by `createdAt` alone.
   */
  incarnation?: string;
}

export function newServiceRecord(config: ThreadConfig, now = new Date().toISOString()): ServiceRecord {
  return {
    v: 1,
    config,
    lifecycle: "active",
    branches: [],
    attachments: [],
    createdAt: now,
    incarnation: randomUUID(),
  };
}

/** Which thread of an id a record or configuration document belongs to (see `ServiceRecord.incarnation`). */
export function incarnationOf(record: { createdAt: string; incarnation?: string }): string {
  return record.incarnation === undefined ? record.createdAt : `${record.createdAt}\n${record.incarnation}`;
}

/** The record of a service thread, its configuration deep-frozen; `NotAServiceThreadError` when it has none. */
export function readServiceRecord(thread: Thread): ServiceRecord {
  const value = thread.metadata[SERVICE_RECORD_KEY] as Partial<ServiceRecord> | undefined;
  const wellFormed =
    typeof value === "object" &&
    value !== null &&
    value.v === 1 &&
    typeof value.config === "object" &&
    value.config !== null &&
    (value.lifecycle === "active" || value.lifecycle === "paused" || value.lifecycle === "killed") &&
    Array.isArray(value.branches) &&
    Array.isArray(value.attachments);
  if (!wellFormed) throw new NotAServiceThreadError(thread.id);
  const record = structuredClone(value) as ServiceRecord;
  deepFreeze(record.config);
  return record;
}

/** Throws the error that explains why the thread takes no new message, if it does not. */
export function assertAcceptsMessages(threadId: string, record: ServiceRecord): void {
  if (record.lifecycle === "killed") throw new ThreadKilledError(threadId);
  const branch = record.branches[record.branches.length - 1];
  if (branch !== undefined) throw new ThreadLockedError(threadId, branch);
  if (record.lifecycle === "paused") throw new ThreadPausedError(threadId);
}
